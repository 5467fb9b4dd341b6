package main

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"agent/core/ollamatest"
	"agent/memory/printable"
)

// hostileText holds what a terminal would act on: a window-title change, a
// screen clear, a carriage return that hides the start of the line and a
// bidi override that reverses it.
const hostileText = "\x1b]0;pwned\x07call \x1b[2Jthe\rlandlord \u202eevil"

// noControls fails when s holds a character a terminal would act on: one
// printable.Escape would have escaped.
func noControls(t *testing.T, where, s string) {
	t.Helper()
	if e := printable.Escape(s); e != s {
		t.Errorf("%s: a control character reached the output: %q", where, s)
	}
}

// A reminder's text is escaped on every output: when it is set, in the
// table and the piped list, and when a tick delivers it; --json keeps it
// whole (JSON escapes it).
func TestReminderTextEscapedOnEveryOutput(t *testing.T) {
	home := filepath.Join(t.TempDir(), "ws")
	if code, _, stderr := runTTY(t, false, "--home", home, "--quiet", "init"); code != 0 {
		t.Fatal(stderr)
	}
	code, stdout, stderr := runTTY(t, false, "--home", home, "remind", hostileText, "--at", "+1h")
	if code != 0 {
		t.Fatalf("remind: %d %s", code, stderr)
	}
	noControls(t, "remind stdout", stdout)
	noControls(t, "remind stderr", stderr)
	// On a terminal remind confirms in one line; the table shows the text.
	if _, stdout, _ = runTTY(t, false, "--home", home, "reminders"); !strings.Contains(stdout, `\x1b]0;pwned\x07call`) {
		t.Errorf("the escaped text is not shown: %q", stdout)
	}
	db, err := sql.Open("sqlite3", filepath.Join(home, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE reminders SET due_at = '2020-01-01T00:00:00Z'`); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"reminders"}, {"reminders", "list"}, {"jobs", "tick"}} {
		for _, tty := range []bool{true, false} {
			var stdout, stderr string
			if tty {
				_, stdout, stderr = runTTY(t, false, append([]string{"--home", home}, args...)...)
			} else {
				_, stdout, stderr = runPiped(t, append([]string{"--home", home}, args...)...)
			}
			noControls(t, strings.Join(args, " ")+" stdout", stdout)
			noControls(t, strings.Join(args, " ")+" stderr", stderr)
		}
	}
	_, stdout, _ = runTTY(t, false, "--home", home, "--json", "reminders", "list")
	if !strings.Contains(stdout, `\u001b]0;pwned\u0007call`) {
		t.Errorf("--json lost the text: %s", stdout)
	}
}

// The model's streamed reply cannot drive the terminal either.
func TestReplyStreamEscapesControls(t *testing.T) {
	var out strings.Builder
	gate := newNoticeGate(func(string) {})
	r := &replyStream{w: writerFunc(func(s string) { out.WriteString(s) }), gate: gate}
	r.token("Sure.\x1b]0;")
	r.token("pwned\x07 Done\r\n\ttab")
	r.end()
	noControls(t, "reply", out.String())
	if want := "Sure.\\x1b]0;pwned\\x07 Done\\r\n\ttab\n"; out.String() != want {
		t.Errorf("reply %q, want %q", out.String(), want)
	}
}

// runPiped runs the CLI in-process with stdout and stderr not terminals.
func runPiped(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb strings.Builder
	streams := &iostreams{In: strings.NewReader(""), Out: &out, Err: &errb}
	code = run(context.Background(), append([]string{"agent"}, args...), streams)
	return code, out.String(), errb.String()
}

// A reply's control characters stay escaped when the session is shown
// again on a terminal or piped.
func TestSessionShowEscapesControls(t *testing.T) {
	home := filepath.Join(t.TempDir(), "ws")
	srv := ollamatest.New(t)
	t.Setenv("OLLAMA_HOST", srv.Host())
	if code, _, stderr := runTTY(t, false, "--home", home, "--quiet", "init", "--agent-name", "Atlas", "--user-name", "Ada"); code != 0 {
		t.Fatal(stderr)
	}
	srv.Script(ollamatest.Text("Sure.\x1b]0;pwned\x07 \x1b[2J Done."))
	code, stdout, stderr := runPiped(t, "--home", home, "chat", "--session", "s", "hello")
	if code != 0 {
		t.Fatalf("chat: %d %s", code, stderr)
	}
	noControls(t, "chat stdout", stdout)
	for _, tty := range []bool{true, false} {
		var stdout string
		if tty {
			_, stdout, _ = runTTY(t, false, "--home", home, "sessions", "show", "s")
		} else {
			_, stdout, _ = runPiped(t, "--home", home, "sessions", "show", "s")
		}
		noControls(t, "sessions show", stdout)
		if !strings.Contains(stdout, `Sure.\x1b]0;pwned\x07`) {
			t.Errorf("the reply is not shown escaped: %q", stdout)
		}
	}
}

// init's hint on how to change a name already set shows the new name as a
// word to type, quoted by printable.Word, the one quoter that escapes
// control characters; a name holding one is refused before any hint, its
// character named, not sent.
func TestInitHintQuotesTheName(t *testing.T) {
	home := filepath.Join(t.TempDir(), "ws")
	if code, _, stderr := runTTY(t, false, "--home", home, "--quiet", "init", "--user-name", "Ada"); code != 0 {
		t.Fatal(stderr)
	}
	code, _, stderr := runTTY(t, false, "--home", home, "init", "--user-name", "Ada Lovelace")
	if want := `agent profile set user.name 'Ada Lovelace'`; code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("init: %d %q does not hint %s", code, stderr, want)
	}
	code, _, stderr = runTTY(t, false, "--home", home, "init", "--user-name", "Ada\x1b[2J")
	if code != 2 || !strings.Contains(stderr, "U+001B") {
		t.Errorf("init with a control character: %d %q, want a usage error naming it", code, stderr)
	}
	noControls(t, "init stderr", stderr)
}
