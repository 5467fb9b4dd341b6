package core

import (
	"agent/core/ollama"

	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"agent/core/disk"
	"agent/core/when"
	"agent/index"
	"agent/soul"
)

// DoctorCheck is one line of `agent doctor`: what was checked, whether it
// is healthy, what was found, and on failure how to fix it.
type DoctorCheck struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Fix    string `json:"fix"`
	// ollama marks the checks whose failure means "model unavailable"
	// (exit 4) rather than a broken workspace (exit 1).
	ollama bool
}

// DoctorReport is the outcome of every check, in a fixed order:
// workspace, state.db, SOUL.md, MEMORY.md, index, skills, secrets,
// integrations, jobs, ollama, model.
type DoctorReport struct {
	OK     bool          `json:"ok"`
	Checks []DoctorCheck `json:"checks"`
}

// What doctor asks state.db.
const (
	doctorSQLQuickCheck = "PRAGMA quick_check"
	doctorSQLMigrations = "SELECT count(*) FROM schema_migrations"
)

// doctorOllamaTimeout bounds each question to Ollama: doctor must answer
// even when something accepts the connection and then says nothing.
const doctorOllamaTimeout = 10 * time.Second

// Doctor checks the workspace at home, its index, and Ollama with the named
// model (o, or when nil the server OLLAMA_HOST names). It never changes a
// file (beyond the schema migrations any command applies when it opens
// state.db, and the integrations' tool cache, which it refreshes as `agent
// mcp list` does) and always runs every check, even when OLLAMA_HOST is
// unusable.
func Doctor(ctx context.Context, home, modelName string, o *Ollama) DoctorReport {
	var checks []DoctorCheck
	add := func(c DoctorCheck) { checks = append(checks, c) }

	ws, wsCheck := doctorWorkspace(home)
	add(wsCheck)
	if ws {
		// state.db is opened once, for its own line and the lines that read it.
		state, openErr := openJournalled(ctx, home) // it looks: no copy merged, no forget settled
		if p := DiskProblem(openErr); p != nil {
			// A disk that refuses writes is not a damaged state.db: it
			// is read as it is, and its line tells the two apart.
			if ro, err := OpenReadOnly(ctx, home, p); err == nil {
				state, openErr = ro, nil
			}
		}
		if openErr == nil {
			defer state.Close()
			if p := disk.Check(home, nil); p != nil && state.ReadOnly == nil {
				// Opened as it is (SQLite reads a WAL database on a
				// read-only disk when its -shm file is there), but
				// nothing can be saved: the line says so.
				state.ReadOnly = p
			}
		}
		add(doctorStateDB(ctx, home, state, openErr))
		add(doctorSyncNotes(doctorSoul(home), home, SoulFile))
		add(doctorSyncNotes(doctorFile(home, MemoryFile), home, MemoryFile))
		loc := time.Local
		if openErr == nil {
			loc = WorkspaceZone(ctx, state)
		}
		add(doctorIndex(ctx, home, loc))
		add(doctorSkills(home))
		add(doctorSecrets(home))
		if openErr != nil {
			for _, name := range []string{"integrations", "jobs"} {
				add(notChecked(name, openErr.Error(), "agent doctor (see the state.db line)"))
			}
		} else {
			add(doctorIntegrations(ctx, state))
			add(DoctorJobs(ctx, state))
		}
	} else {
		for _, name := range []string{StateFile, SoulFile, MemoryFile, "index", "skills", "secrets", "integrations", "jobs"} {
			// The workspace line says the fix once; eight more would bury it.
			add(notChecked(name, "no workspace", ""))
		}
	}

	var err error
	if o == nil {
		o, err = NewOllama(nil)
	}
	ollama, reachable := doctorOllama(ctx, o, err)
	add(ollama)
	if reachable {
		add(doctorModel(ctx, o, modelName))
	} else {
		c := notChecked("model", "Ollama unreachable", ollama.Fix)
		c.ollama = true
		add(c)
	}

	rep := DoctorReport{OK: true, Checks: checks}
	for _, c := range checks {
		rep.OK = rep.OK && c.OK
	}
	return rep
}

// Err is nil when every check passed. Otherwise it wraps
// ErrModelUnavailable (exit 4) when only Ollama or the model failed, and is
// a plain failure (exit 1) when anything in the workspace did.
func (r DoctorReport) Err() error {
	failed, workspace := 0, false
	for _, c := range r.Checks {
		if !c.OK {
			failed++
			workspace = workspace || !c.ollama
		}
	}
	if failed == 0 {
		return nil
	}
	msg := fmt.Sprintf("doctor: %d of %d checks failed", failed, len(r.Checks))
	if workspace {
		return errors.New(msg)
	}
	return ollama.Unavailable(msg + " (Ollama or the model)")
}

func notChecked(name, why, fix string) DoctorCheck {
	return DoctorCheck{Name: name, Detail: "not checked: " + why, Fix: fix}
}

func doctorWorkspace(home string) (bool, DoctorCheck) {
	c := DoctorCheck{Name: "workspace", Detail: home}
	st, err := os.Stat(home)
	switch {
	case errors.Is(err, os.ErrNotExist):
		c.Detail, c.Fix = "no workspace at "+home, "agent init"
	case err != nil:
		c.Detail, c.Fix = err.Error(), "check the permissions of "+home
	case !st.IsDir():
		c.Detail, c.Fix = home+" is not a directory", "point --home or AGENT_HOME at a workspace directory"
	default:
		if _, err := os.Stat(filepath.Join(home, StateFile)); err != nil {
			c.Detail, c.Fix = "no workspace at "+home+" (no "+StateFile+")", "agent init"
		} else {
			c.OK = true
		}
	}
	return c.OK, c
}

// doctorStateDB checks the state.db Doctor opened (ws), or says why it
// could not (err).
func doctorStateDB(ctx context.Context, home string, ws *Workspace, err error) DoctorCheck {
	c := DoctorCheck{Name: StateFile}
	if p := DiskProblem(err); p != nil {
		c.Detail, c.Fix = p.Error()+": state.db cannot be opened, which does not mean it is damaged", doctorDiskFix(p)
		return c
	}
	if err != nil {
		c.Detail, c.Fix = err.Error(), "restore "+filepath.Join(home, StateFile)+" from a backup"
		return c
	}
	var result string
	if err := ws.State.QueryRowContext(ctx, doctorSQLQuickCheck).Scan(&result); err != nil {
		result = err.Error()
	}
	var migrations int
	if err := ws.State.QueryRowContext(ctx, doctorSQLMigrations).Scan(&migrations); err != nil {
		result = err.Error()
	}
	if result != "ok" {
		c.Detail, c.Fix = "quick_check: "+result, "restore "+ws.Path(StateFile)+" from a backup"
		return c
	}
	c.OK, c.Detail = true, fmt.Sprintf("quick_check ok, %d migrations applied", migrations)
	if p := ws.ReadOnly; p != nil {
		c.OK = false
		c.Detail = p.Error() + ": nothing can be saved; state.db is not damaged (" + c.Detail + ")"
		c.Fix = doctorDiskFix(p)
	}
	return c
}

// doctorDiskFix is the fix for a disk that refuses writes.
func doctorDiskFix(p *disk.Problem) string {
	switch p.Kind {
	case disk.Full:
		return "free some space on the disk of " + p.Dir
	case disk.ReadOnly:
		return "mount " + p.Dir + " read-write"
	}
	return "make " + p.Dir + " writable by you (check its owner and permissions)"
}

func doctorFile(home, name string) DoctorCheck {
	c := DoctorCheck{Name: name}
	path := filepath.Join(home, name)
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		c.Detail, c.Fix = path+" is missing", "agent init (creates missing files, never touches existing ones)"
	case err != nil:
		c.Detail, c.Fix = err.Error(), "check the permissions of "+path
	default:
		c.OK, c.Detail = true, fmt.Sprintf("%d bytes", len(b))
	}
	return c
}

// doctorSoul checks SOUL.md as chat, prompt and soul read it: a file they
// would refuse (not UTF-8, say) is not ok here either.
func doctorSoul(home string) DoctorCheck {
	c := doctorFile(home, SoulFile)
	if !c.OK {
		return c
	}
	size, warnings, err := soul.Check(filepath.Join(home, SoulFile))
	switch {
	case err != nil:
		c.OK, c.Detail, c.Fix = false, err.Error(), "fix it in an editor, or restore a revision: agent soul history, agent soul revert REV"
	case len(warnings) > 0:
		c.Detail = fmt.Sprintf("%d bytes; %s", size, strings.Join(warnings, "; "))
	}
	return c
}

func doctorIndex(ctx context.Context, home string, loc *time.Location) DoctorCheck {
	c := DoctorCheck{Name: "index", Fix: "agent memory reindex"}
	if _, err := os.Stat(filepath.Join(home, IndexFile)); errors.Is(err, os.ErrNotExist) {
		c.Detail = "not built"
		return c
	}
	var warnings []string
	ix, err := index.Open(ctx, home, func(w string) { warnings = append(warnings, w) })
	if err != nil {
		c.Detail = err.Error()
		return c
	}
	defer ix.Close()
	st, err := ix.Status(ctx)
	switch {
	case err != nil:
		c.Detail = err.Error()
	case st.Rebuild != "":
		c.Detail = "must be rebuilt: " + st.Rebuild
	case st.Changed > 0:
		c.Detail = doctorPlural(st.Changed, "file") + " changed since the last reindex"
	case st.Unreadable > 0:
		// Retried by every update; until then their notes are not searchable.
		c.Detail = doctorPlural(st.Unreadable, "file") + " could not be read"
		c.Fix = "check the permissions of the files named by: agent memory reindex"
	default:
		c.OK, c.Fix = true, ""
		c.Detail = "fresh: " + doctorPlural(st.Files, "file") + ", " + doctorPlural(st.Chunks, "chunk")
		if !st.LastReindex.IsZero() {
			c.Detail += ", indexed " + when.Format(st.LastReindex, loc)
		}
	}
	if !c.OK && len(warnings) > 0 {
		c.Detail += " (" + strings.Join(warnings, "; ") + ")"
	}
	return c
}

const fixOllama = "start it with 'ollama serve', or point OLLAMA_HOST at it"

// doctorOllama asks the server for its version; err is the adapter's own
// failure to start (a bad OLLAMA_HOST), reported as this check's.
// fixOllamaHost is the fix for an OLLAMA_HOST agent cannot use at all.
const fixOllamaHost = "set OLLAMA_HOST to an http:// or https:// address, or unset it for 127.0.0.1:11434"

func doctorOllama(ctx context.Context, o *Ollama, err error) (DoctorCheck, bool) {
	c := DoctorCheck{Name: "ollama", ollama: true}
	var v string
	if err == nil {
		ctx, cancel := context.WithTimeout(ctx, doctorOllamaTimeout)
		defer cancel()
		v, err = o.Version(ctx)
	}
	if err != nil {
		c.Detail, c.Fix = err.Error(), fixOllama
		if o == nil { // OLLAMA_HOST itself is unusable: starting a server won't help
			c.Fix = fixOllamaHost
		}
		return c, false
	}
	c.OK, c.Detail = true, fmt.Sprintf("version %s at %s", v, o.Host())
	return c, true
}

func doctorModel(ctx context.Context, o *Ollama, name string) DoctorCheck {
	c := DoctorCheck{Name: "model", ollama: true}
	ctx, cancel := context.WithTimeout(ctx, doctorOllamaTimeout)
	defer cancel()
	info, err := o.Show(ctx, name)
	if err != nil {
		c.Detail = err.Error()
		if ollama.IsModelNotFound(err) {
			c.Detail = NormalizeModel(name) + " not installed"
			c.Fix = "ollama pull " + strings.TrimSpace(name)
		}
		return c
	}
	c.OK = true
	c.Detail = info.Name
	if info.ContextLength > 0 {
		c.Detail += fmt.Sprintf(", context length %d", info.ContextLength)
	}
	if desc := strings.TrimSpace(strings.Join([]string{info.Family, info.ParameterSize, info.Quantization}, " ")); desc != "" {
		c.Detail += ", " + desc
	}
	if !slices.Contains(info.Capabilities, "tools") {
		c.Detail += ", no tool calling (chat works without tools)"
	}
	return c
}

// doctorPlural spells a count with its noun: "1 file", "2 files".
func doctorPlural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
