package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"agent/core"
	"agent/core/mcp"
	"agent/core/ollamatest"
	"agent/index"
)

// doctorHome is an initialised workspace with its index built.
func doctorHome(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "ws")
	ws, _, err := core.Init(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	ws.Close()
	doctorReindex(t, home)
	return home
}

func doctorReindex(t *testing.T, home string) {
	t.Helper()
	ix, err := index.Open(context.Background(), home, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Reindex(context.Background(), index.ReindexOptions{}); err != nil {
		t.Fatal(err)
	}
}

// doctorCheckNamed finds one check of a report by name.
func doctorCheckNamed(t *testing.T, rep core.DoctorReport, name string) core.DoctorCheck {
	t.Helper()
	for _, c := range rep.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", name, rep)
	return core.DoctorCheck{}
}

func TestDoctorAllOK(t *testing.T) {
	home := doctorHome(t)
	o, _ := newFakeOllama(t)
	rep := core.Doctor(context.Background(), home, "llama3.2", o)
	if !rep.OK || rep.Err() != nil {
		t.Fatalf("report not ok: %+v", rep)
	}
	var names []string
	for _, c := range rep.Checks {
		names = append(names, c.Name)
		if !c.OK || c.Fix != "" || c.Detail == "" {
			t.Errorf("check %+v: want ok, a detail and no fix", c)
		}
	}
	if got := strings.Join(names, " "); got != "workspace state.db SOUL.md MEMORY.md index skills secrets integrations jobs ollama model" {
		t.Errorf("checks in order %q", got)
	}
	if d := doctorCheckNamed(t, rep, "model").Detail; d != "llama3.2:latest, context length 131072, llama 3.2B Q4_K_M" {
		t.Errorf("model detail = %q", d)
	}
	if d := doctorCheckNamed(t, rep, "ollama").Detail; d != "version 0.9.6 at "+o.Host() {
		t.Errorf("ollama detail = %q", d)
	}
	if d := doctorCheckNamed(t, rep, "index").Detail; !strings.HasPrefix(d, "fresh: 1 file, ") {
		t.Errorf("index detail = %q", d)
	}
	if d := doctorCheckNamed(t, rep, "integrations").Detail; d != "none configured" {
		t.Errorf("integrations detail = %q", d)
	}
}

// Doctor starts each integration as `agent mcp list` does: a working one is
// named with its tool count; one that cannot start, or an entry that cannot
// be used as written, fails the check (exit 1) with its error; a malformed
// mcp.json too. No server outlives the check.
func TestDoctorIntegrations(t *testing.T) {
	ctx := context.Background()
	home := doctorHome(t)
	o, _ := newFakeOllama(t)
	// writeMCP writes mcp.json and approves its servers, as `agent mcp add`
	// would have.
	writeMCP := func(js string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(home, mcp.ConfigFile), []byte(js), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := mcp.LoadConfig(filepath.Join(home, mcp.ConfigFile))
		if err != nil {
			return // the malformed case: nothing to approve
		}
		ws, err := core.Open(ctx, home)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		for _, name := range cfg.Names() {
			if err := mcp.NewStore(ws.State, nil).Approve(ctx, cfg.Servers[name]); err != nil {
				t.Fatal(err)
			}
		}
	}
	self, _ := json.Marshal(os.Args[0])
	writeMCP(`{"mcpServers": {"t": {"command": ` + string(self) + `, "env": {"MCPTEST_MAIN": "1"}}}}`)
	c := doctorCheckNamed(t, core.Doctor(ctx, home, "llama3.2", o), "integrations")
	if !c.OK || !regexp.MustCompile(`^t: \d+ tools$`).MatchString(c.Detail) || c.Fix != "" {
		t.Errorf("one working integration: %+v", c)
	}

	writeMCP(`{"mcpServers": {"t": {"command": ` + string(self) + `, "env": {"MCPTEST_MAIN": "1"}},
		"gone": {"command": "/nonexistent/mcp-server"}, "bad": {"url": "not a url", "type": "http"}}}`)
	rep := core.Doctor(ctx, home, "llama3.2", o)
	c = doctorCheckNamed(t, rep, "integrations")
	if c.OK || !strings.HasPrefix(c.Detail, "2 of 3 integrations unavailable (chats go on without their tools): bad: ") ||
		!strings.Contains(c.Detail, "; gone: ") || !strings.Contains(c.Detail, "/nonexistent/mcp-server") || !strings.Contains(c.Fix, "agent mcp list") {
		t.Errorf("two broken integrations: %+v", c)
	}
	if err := rep.Err(); err == nil || errors.Is(err, core.ErrModelUnavailable) {
		t.Errorf("Err() = %v, want a plain failure (exit 1)", err)
	}

	writeMCP(`{"mcpServers": {`)
	c = doctorCheckNamed(t, core.Doctor(ctx, home, "llama3.2", o), "integrations")
	if c.OK || !strings.Contains(c.Detail, mcp.ConfigFile) || !strings.Contains(c.Fix, "in an editor") {
		t.Errorf("malformed mcp.json: %+v", c)
	}
}

func TestDoctorModelMissing(t *testing.T) {
	home := doctorHome(t)
	o, srv := newFakeOllama(t)
	srv.SetModels(ollamatest.Model{Name: "qwen3:8b", Family: "qwen3", ContextLength: 40960, Capabilities: []string{"completion"}})
	rep := core.Doctor(context.Background(), home, "llama3.2", o)
	m := doctorCheckNamed(t, rep, "model")
	if m.OK || m.Detail != "llama3.2:latest not installed" || m.Fix != "ollama pull llama3.2" {
		t.Errorf("model check = %+v", m)
	}
	if err := rep.Err(); !errors.Is(err, core.ErrModelUnavailable) {
		t.Errorf("Err() = %v, want ErrModelUnavailable (exit 4)", err)
	}
	// A model without tool calling is usable, and says so.
	rep = core.Doctor(context.Background(), home, "qwen3:8b", o)
	if m := doctorCheckNamed(t, rep, "model"); !m.OK || !strings.HasSuffix(m.Detail, ", no tool calling (chat works without tools)") {
		t.Errorf("model check = %+v", m)
	}
}

func TestDoctorOllamaDown(t *testing.T) {
	home := doctorHome(t)
	t.Setenv("OLLAMA_HOST", "127.0.0.1:1")
	o, err := core.NewOllama(nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := core.Doctor(context.Background(), home, "llama3.2", o)
	if c := doctorCheckNamed(t, rep, "ollama"); c.OK || !strings.HasPrefix(c.Detail, "cannot reach Ollama at http://127.0.0.1:1") || !strings.Contains(c.Fix, "ollama serve") {
		t.Errorf("ollama check = %+v", c)
	}
	if c := doctorCheckNamed(t, rep, "model"); c.OK || c.Detail != "not checked: Ollama unreachable" {
		t.Errorf("model check = %+v", c)
	}
	if err := rep.Err(); !errors.Is(err, core.ErrModelUnavailable) || err.Error() != "doctor: 2 of 11 checks failed (Ollama or the model)" {
		t.Errorf("Err() = %v", err)
	}
}

// An OLLAMA_HOST the adapter refuses is the ollama check's failure, not a
// reason to skip the workspace checks.
func TestDoctorBadOllamaHost(t *testing.T) {
	home := doctorHome(t)
	t.Setenv("OLLAMA_HOST", "ftp://127.0.0.1:1")
	rep := core.Doctor(context.Background(), home, "llama3.2", nil)
	if len(rep.Checks) != 11 {
		t.Fatalf("%d checks, want 11: %+v", len(rep.Checks), rep)
	}
	if c := doctorCheckNamed(t, rep, "ollama"); c.OK || !strings.Contains(c.Detail, "scheme must be http or https") || c.Fix == "" {
		t.Errorf("ollama check = %+v", c)
	}
	if c := doctorCheckNamed(t, rep, "MEMORY.md"); !c.OK {
		t.Errorf("MEMORY.md check = %+v", c)
	}
	if err := rep.Err(); !errors.Is(err, core.ErrModelUnavailable) {
		t.Errorf("Err() = %v, want ErrModelUnavailable", err)
	}
}

func TestDoctorNoWorkspace(t *testing.T) {
	o, _ := newFakeOllama(t)
	home := filepath.Join(t.TempDir(), "nowhere")
	rep := core.Doctor(context.Background(), home, "llama3.2", o)
	if c := doctorCheckNamed(t, rep, "workspace"); c.OK || c.Detail != "no workspace at "+home || c.Fix != "agent init" {
		t.Errorf("workspace check = %+v", c)
	}
	for _, name := range []string{"state.db", "SOUL.md", "MEMORY.md", "index"} {
		if c := doctorCheckNamed(t, rep, name); c.OK || c.Detail != "not checked: no workspace" {
			t.Errorf("%s check = %+v", name, c)
		}
	}
	if !doctorCheckNamed(t, rep, "model").OK {
		t.Error("the model check does not need a workspace")
	}
	if err := rep.Err(); err == nil || errors.Is(err, core.ErrModelUnavailable) {
		t.Errorf("Err() = %v, want a plain failure (exit 1)", err)
	}
	if _, err := os.Stat(home); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("doctor created %s", home)
	}
}

func TestDoctorWorkspaceProblems(t *testing.T) {
	o, _ := newFakeOllama(t)
	ctx := context.Background()

	t.Run("index not built, then stale", func(t *testing.T) {
		home := doctorHome(t)
		os.Remove(filepath.Join(home, core.IndexFile))
		c := doctorCheckNamed(t, core.Doctor(ctx, home, "llama3.2", o), "index")
		if c.OK || c.Detail != "not built" || c.Fix != "agent memory reindex" {
			t.Errorf("index check = %+v", c)
		}
		if _, err := os.Stat(filepath.Join(home, core.IndexFile)); !errors.Is(err, os.ErrNotExist) {
			t.Error("doctor built the index")
		}
		doctorReindex(t, home)
		if err := os.WriteFile(filepath.Join(home, core.LogsDir, "2026-11-20.md"), []byte("# Friday\n\nA note.\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		c = doctorCheckNamed(t, core.Doctor(ctx, home, "llama3.2", o), "index")
		if c.OK || c.Detail != "1 file changed since the last reindex" || c.Fix != "agent memory reindex" {
			t.Errorf("index check = %+v", c)
		}
	})

	t.Run("SOUL.md missing", func(t *testing.T) {
		home := doctorHome(t)
		os.Remove(filepath.Join(home, core.SoulFile))
		rep := core.Doctor(ctx, home, "llama3.2", o)
		if c := doctorCheckNamed(t, rep, "SOUL.md"); c.OK || !strings.HasSuffix(c.Detail, "SOUL.md is missing") || !strings.HasPrefix(c.Fix, "agent init") {
			t.Errorf("SOUL.md check = %+v", c)
		}
		if !doctorCheckNamed(t, rep, "MEMORY.md").OK {
			t.Error("MEMORY.md is fine")
		}
		if err := rep.Err(); err == nil || errors.Is(err, core.ErrModelUnavailable) {
			t.Errorf("Err() = %v, want a plain failure", err)
		}
	})

	t.Run("state.db corrupt", func(t *testing.T) {
		home := doctorHome(t)
		garbage := []byte("this is not a database at all, and doctor must leave it alone\n")
		state := filepath.Join(home, core.StateFile)
		for _, suffix := range []string{"-wal", "-shm"} {
			os.Remove(state + suffix)
		}
		if err := os.WriteFile(state, garbage, 0o600); err != nil {
			t.Fatal(err)
		}
		rep := core.Doctor(ctx, home, "llama3.2", o)
		c := doctorCheckNamed(t, rep, "state.db")
		if c.OK || !strings.Contains(c.Detail, "not a readable SQLite database") || !strings.Contains(c.Fix, "from a backup") {
			t.Errorf("state.db check = %+v", c)
		}
		// The checks that read state.db say they could not, and point at it.
		for _, name := range []string{"integrations", "jobs"} {
			if c := doctorCheckNamed(t, rep, name); c.OK || !strings.HasPrefix(c.Detail, "not checked: ") || c.Fix != "agent doctor (see the state.db line)" {
				t.Errorf("%s check = %+v", name, c)
			}
		}
		if b, _ := os.ReadFile(state); string(b) != string(garbage) {
			t.Error("doctor changed the corrupt state.db")
		}
	})
}
