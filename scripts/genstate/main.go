// Command genstate grows a workspace's state.db with years of made-up chat,
// for the benchmark of what every command costs as state.db grows
// (scripts/bench-statedb.sh): sessions of 10 to 60 turns, each turn a user
// message, a reply and now and then a tool call and its result, spread over
// three years. Rows go in as agent writes them (sessions.turns included), a
// few thousand per transaction, until the file reaches the size asked for.
//
//	genstate -db WS/state.db -mb 400
//
// With -session, it writes one session of that name instead, of -turns
// turns of two messages each (a question and its answer), for the
// benchmark of a turn in a long session (scripts/bench-session.sh):
//
//	genstate -db WS/state.db -session long -turns 20000
package main

import (
	"database/sql"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"agent/index/sqlitedb"
)

const (
	sqlInsertSession = `INSERT INTO sessions (name, model, created_at, updated_at, turns) VALUES (?, 'llama3.2:latest', ?, ?, ?)`
	sqlInsertMessage = `INSERT INTO messages (session_id, role, content, tool_calls, tool_name, status, prompt_eval_count, eval_count, created_at)
		VALUES (?, ?, ?, ?, ?, 'complete', ?, ?, ?)`
	sqlTouchSession = `UPDATE sessions SET updated_at = ? WHERE id = ?`
	sqlCheckpoint   = `PRAGMA wal_checkpoint(TRUNCATE)`
)

var words = strings.Fields(`the a to of and in for on with my your is was be it that this we our
	trip flight Lisbon train dinner meeting doctor garden paint kitchen budget invoice report
	tomorrow Friday morning evening week month plan remember note idea book read call email
	project deadline draft review friend family birthday gift coffee tea walk run bike weather
	rain sunny recipe bread soup market price ticket hotel museum concert list task done next`)

func main() {
	db := flag.String("db", "", "state.db to grow (made by agent init)")
	mb := flag.Int("mb", 10, "stop once the file is this many MB")
	name := flag.String("session", "", "write one session of this name instead (with -turns)")
	turns := flag.Int("turns", 20000, "the turns of the -session session")
	flag.Parse()
	if *db == "" {
		fmt.Fprintln(os.Stderr, "usage: genstate -db WS/state.db -mb N | -session NAME -turns N")
		os.Exit(2)
	}
	grower := func() error { return grow(*db, int64(*mb)<<20) }
	if *name != "" {
		grower = func() error { return one(*db, *name, *turns) }
		plainTurns = true
	}
	if err := grower(); err != nil {
		fmt.Fprintln(os.Stderr, "genstate:", err)
		os.Exit(1)
	}
}

// one writes a single session of turns turns.
func one(path, name string, turns int) error {
	db, rng, text, err := open(path)
	if err != nil {
		return err
	}
	defer db.Close()
	at := time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)
	return session(db, name, turns, &at, rng, text)
}

func open(path string) (*sql.DB, *rand.Rand, func(int) string, error) {
	db, err := sql.Open("sqlite3", sqlitedb.File(path, "mode=rw&_busy_timeout=10000&_txlock=immediate"))
	if err != nil {
		return nil, nil, nil, err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	text := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		return b.String()
	}
	return db, rng, text, nil
}

func grow(path string, target int64) error {
	db, rng, text, err := open(path)
	if err != nil {
		return err
	}
	defer db.Close()
	start := time.Date(2023, 11, 1, 8, 0, 0, 0, time.UTC)
	at := start
	for n := 0; ; n++ {
		if n%50 == 0 {
			if _, err := db.Exec(sqlCheckpoint); err != nil {
				return err
			}
			fi, err := os.Stat(path)
			if err != nil {
				return err
			}
			if fi.Size() >= target {
				fmt.Fprintf(os.Stderr, "genstate: %s: %d sessions, %d MB\n", path, n, fi.Size()>>20)
				return nil
			}
		}
		if err := session(db, fmt.Sprintf("gen-%06d", n), 10+rng.IntN(51), &at, rng, text); err != nil {
			return err
		}
	}
}

// plainTurns leaves out the tool calls: each turn is two messages.
var plainTurns bool

// session writes one session of turns turns in one transaction.
func session(db *sql.DB, name string, turns int, at *time.Time, rng *rand.Rand, text func(int) string) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ts := func() string { return at.Format(time.RFC3339Nano) }
	*at = at.Add(time.Duration(2+rng.IntN(10)) * time.Hour)
	res, err := tx.Exec(sqlInsertSession, name, ts(), ts(), turns)
	if err != nil {
		return err
	}
	id, _ := res.LastInsertId()
	for i := 0; i < turns; i++ {
		*at = at.Add(time.Duration(20+rng.IntN(300)) * time.Second)
		msgs := [][3]string{{"user", text(80 + rng.IntN(400)), ""}}
		if rng.IntN(5) == 0 && !plainTurns {
			msgs = append(msgs, [3]string{"assistant", "", `[{"name":"memory_search","arguments":{"query":"` + text(12) + `"}}]`},
				[3]string{"tool", text(300 + rng.IntN(900)), ""})
		}
		msgs = append(msgs, [3]string{"assistant", text(200 + rng.IntN(1200)), ""})
		for _, m := range msgs {
			tool := ""
			if m[0] == "tool" {
				tool = "memory_search"
			}
			if _, err := tx.Exec(sqlInsertMessage, id, m[0], m[1], m[2], tool, 1500+rng.IntN(3000), 50+rng.IntN(300), ts()); err != nil {
				return err
			}
		}
	}
	if _, err := tx.Exec(sqlTouchSession, ts(), id); err != nil {
		return err
	}
	return tx.Commit()
}
