package jobs

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// beatFresh is how long a tick's beat says "something runs the tick": the
// timer and the crontab line run it every minute, and a machine that slept
// runs it again on waking.
const beatFresh = 10 * time.Minute

// Beat records that a tick ran now.
func (s *Store) Beat(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, qBeat, stamp(s.now()))
	return err
}

// TickState is whether something runs `agent jobs tick` for a workspace.
type TickState struct {
	Runs bool // a tick beat lately, or this workspace's timer is installed
	// Told: the user was already told that nothing runs it.
	Told bool
}

// Ticking says whether something runs the tick for home: a beat in the
// last beatFresh, or the workspace's systemd timer written by `agent jobs
// install --write` (a fresh install beats within the minute).
func (s *Store) Ticking(ctx context.Context, home string) (TickState, error) {
	var beat, told string
	err := s.db.QueryRowContext(ctx, qBeats).Scan(&beat, &told)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return TickState{}, err
	}
	st := TickState{Told: told != ""}
	if t, err := time.Parse(time.RFC3339, beat); err == nil && s.now().Sub(t) < beatFresh {
		st.Runs = true
	}
	st.Runs = st.Runs || TimerInstalled(home)
	return st, nil
}

// Told records that the user was told nothing runs the tick, so `remind`
// says it once.
func (s *Store) Told(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, qTold, stamp(s.now()))
	return err
}

// TimerInstalled says whether home's systemd user timer is written.
func TimerInstalled(home string) bool {
	cfg, err := os.UserConfigDir()
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(cfg, "systemd", "user", Install{Home: home}.UnitName()+".timer"))
	return err == nil
}

// TickFix is the one command that makes something run the tick here: the
// systemd timer where systemctl is, else the crontab line it prints.
func TickFix() string {
	if _, err := exec.LookPath("systemctl"); err == nil {
		return "agent jobs install --write"
	}
	return "agent jobs install (and add its crontab line with: crontab -e)"
}
