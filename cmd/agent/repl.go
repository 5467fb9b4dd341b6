package main

import (
	"agent/core/memrev"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/chzyer/readline"
	"golang.org/x/term"

	"agent/core"
	"agent/core/callview"
	"agent/index"
	"agent/memory"
	"agent/profile"
)

const replHelp = `Type a message and press Enter. End a line with \ to continue it on the next,
or open and close a block with """ for multi-line text; a paste is one message,
however many lines it has (its breaks show as ↵). Ctrl-C stops a reply;
Ctrl-D or /exit leaves.

  /help          this help
  /prompt        show the context the next message would be sent with
  /context       how full the context is: each layer's size, what was cut
  /compact       summarise the turns the context has dropped (the summary
                 opens the context from then on)
  /search Q      search memory
  /remember TEXT add a fact to MEMORY.md
  /soul          show SOUL.md
  /profile       show the profile
  /new           start a new session
  /exit          leave
`

// repl runs the interactive loop on a terminal. Ctrl-C cancels only the reply
// in progress; a failed turn is reported and the loop goes on.
func (a *app) repl(ctx context.Context, s *chatSession) error {
	// Ollama down or the model missing: the REPL stays up, since the /
	// commands (/search, /remember, /soul, …) need no model; a message is
	// checked again before it is sent.
	unchecked := false
	if err := a.checkModel(ctx, s); errors.Is(err, core.ErrModelUnavailable) {
		reportError(a.io.Err, err)
		a.warnf("staying up: / commands work without the model (/search, /remember); a message is sent once it answers")
		unchecked = true
	} else if err != nil {
		return err
	} else {
		a.sayNoTools(s)
	}
	a.detachSignals()
	if s.mem != nil {
		// Between turns the files are watched, so a turn need not walk them.
		if err := s.mem.WatchFiles(s.ws.Home); err != nil {
			a.warnf("not watching the memory files (%v): each turn checks them instead", err)
		}
	}
	// The line history holds what the user typed: private, as the rest of
	// the workspace (the line editor would create it with the umask's mode).
	history := filepath.Join(s.ws.Home, core.ChatHistoryFile)
	if f, err := os.OpenFile(history, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		f.Close()
	}
	// The line editor's reader stops when this is closed. Its Close does
	// not close it (it closes only the buffer it puts in front), and waits
	// for its reader, which may be in the middle of reading a key: the
	// REPL then hung on the way out until a key came, now and then after
	// Ctrl-D (TestOutputFitsEightyColumns, under load).
	stdin := readline.NewCancelableStdin(&pasteReader{r: os.Stdin})
	rl, err := readline.NewEx(&readline.Config{
		// A paste arrives as one message however many lines it has
		// (bracketed paste, turned on below).
		Stdin:           stdin,
		Prompt:          a.ansiErr("1;32", "› "),
		HistoryFile:     history,
		InterruptPrompt: "^C",
		EOFPrompt:       "",
		Stdout:          a.io.Err, // the prompt and echo are not data
		Stderr:          a.io.Err,

		// Only messages go into the line history, saved by readInput once
		// a line is known to be one; an answer to a question (an approval,
		// a confirmation, a page of a call) never is: a "y" or "always"
		// recalled with the up arrow at the next question would approve a
		// call unseen. Saving from this goroutine is safe: the editor reads
		// no key between two Readline calls.
		DisableAutoSaveHistory: true,
	})
	if err != nil {
		stdin.Close()
		return fmt.Errorf("start line editor: %w", err)
	}
	closeEditor := func() {
		stdin.Close()
		rl.Close()
	}
	defer closeEditor()
	if a.io.ErrTTY && os.Getenv("TERM") != "dumb" {
		// The terminal wraps a paste in markers from now on; it is told to
		// stop on every way out (return, panic, SIGTERM and SIGHUP end the
		// loop through a return), or the shell after us would get them.
		fmt.Fprint(a.io.Err, pasteOn)
		defer fmt.Fprint(a.io.Err, pasteOff)
	}
	s.chat.Confirm = func(q string) bool {
		rl.SetPrompt(q + " [y/N] ")
		defer rl.SetPrompt(a.ansiErr("1;32", "› "))
		ans, err := rl.Readline()
		return err == nil && strings.HasPrefix(strings.ToLower(strings.TrimSpace(ans)), "y")
	}
	if s.chat.MCP != nil {
		// After the line editor holds the terminal: input typed meanwhile
		// (or piped in by a test) is not lost to the tty's cooked mode.
		s.mcp.Start(ctx) // every server at once; a failure is reported, never fatal
		s.chat.MCP.Ask = func(q core.Approval) string {
			defer rl.SetPrompt(a.ansiErr("1;32", "› "))
			// The whole call, wrapped and paged, never cut: a refusal to
			// read it to its end is a refusal to run it.
			width, height := termSize()
			fmt.Fprintln(a.io.Err, q.Title)
			lines := callview.Wrap(q.Lines, width)
			if !callview.Page(a.io.Err, lines, height-1, func(p string) (string, error) { rl.SetPrompt(p); return rl.Readline() }) {
				return "n"
			}
			rl.SetPrompt(q.Question + " ")
			ans, err := rl.Readline()
			switch strings.ToLower(strings.TrimSpace(ans)) {
			case "y", "yes":
				return "y"
			case "a", "always":
				if err == nil {
					return "always"
				}
			}
			return "n"
		}
	}
	switch {
	case s.session.ID != 0:
		a.warnf("session %s (%d turns so far); /help for commands", s.session.Name, s.session.Turns)
	case s.session.Name != "": // --session NAME, created with its first message
		a.warnf("new session %s; /help for commands, Ctrl-D to leave", s.session.Name)
	default:
		a.warnf("new session; /help for commands, Ctrl-D to leave")
	}
	// Ctrl-C stops the reply in progress; SIGTERM and SIGHUP (the terminal
	// closed) stop it too and then end the REPL, after the reply is stored.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	quit := make(chan os.Signal, 1)
	signal.Notify(quit, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(quit)
	quitting := make(chan struct{})
	go func() {
		select {
		case <-quit:
			close(quitting)
			closeEditor() // ends a Readline in progress with EOF
		case <-ctx.Done():
		}
	}()

	for {
		line, err := readInput(rl)
		if errors.Is(err, readline.ErrInterrupt) {
			continue
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "/") {
			done, err := a.slashCommand(ctx, s, line)
			if err != nil {
				reportError(a.io.Err, err)
			}
			if done {
				return nil
			}
			continue
		}
		if unchecked {
			if err := a.checkModel(ctx, s); err != nil {
				reportError(a.io.Err, err)
				continue
			}
			unchecked = false
			a.sayNoTools(s)
		}
		a.replTurn(ctx, s, line, sigs, quitting)
		select {
		case <-quitting:
			return nil
		default:
		}
	}
}

// replTurn runs one turn with its own context, cancelled by Ctrl-C.
func (a *app) replTurn(ctx context.Context, s *chatSession, line string, sigs chan os.Signal, quitting chan struct{}) {
	if err := s.ensureSession(ctx); err != nil {
		reportError(a.io.Err, err)
		return
	}
	// A Ctrl-C that arrived between turns (the line editor was not reading)
	// belongs to no reply: it must not stop this one.
	select {
	case <-sigs:
	default:
	}
	if a.io.InTTY {
		defer quietTypeAhead()() // keys typed meanwhile wait for the next prompt
	}
	turnCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-quitting:
			cancel()
		case <-done:
		}
	}()
	if s.mcp != nil {
		s.mcp.Revive(ctx) // servers that died start again in the background
	}
	stream := &replyStream{w: a.io.Out, gate: s.notes, wait: a.startWait(waitingFor(s), waitProbe(s))}
	_, err := s.chat.Turn(turnCtx, &s.session, line, stream.token)
	close(done)
	cancel()
	stream.end()
	if err != nil {
		reportError(a.io.Err, turnError(err))
	}
}

// readInput reads one message: a line, lines joined by a trailing
// backslash, or a """ block. Each line goes into the line history, as the
// editor would have saved it, once the message is read (or given up).
func readInput(rl *readline.Instance) (string, error) {
	var typed []string
	defer func() {
		// The line history is a file in the workspace: a secret typed (or
		// pasted) is kept there as its marker, as in the session. The
		// message is redacted whole, so a key block pasted over several
		// lines is caught as one (a paste's breaks are real ones here).
		// RedactLines keeps every line break, so each typed line (a paste
		// is one, its breaks held as pasteBreak) is saved again as one
		// entry: the up arrow brings back a whole paste.
		for i, l := range typed {
			typed[i] = pastedText(l)
		}
		text, _ := memory.RedactLines(strings.Join(typed, "\n"))
		lines := strings.Split(text, "\n")
		for _, l := range typed {
			n := strings.Count(l, "\n") + 1
			entry := strings.TrimRight(strings.Join(lines[:n], pasteBreak), pasteBreak) // a paste's last break, as the message's trim
			lines = lines[n:]
			if entry != "" {
				_ = rl.SaveHistory(entry) // a history that cannot be written loses only the up arrow
			}
		}
	}()
	readLine := func() (string, error) {
		l, err := rl.Readline()
		if err == nil {
			typed = append(typed, l)
		}
		return l, err
	}
	line, err := readLine()
	if err != nil {
		return "", err
	}
	msg, err := readRest(line, readLine)
	return pastedText(msg), err
}

// readRest reads the rest of a message that starts with line.
func readRest(line string, readLine func() (string, error)) (string, error) {
	var err error
	if strings.TrimSpace(line) == `"""` {
		var parts []string
		for {
			l, err := readLine()
			if err != nil {
				return "", err
			}
			if strings.TrimSpace(l) == `"""` {
				return strings.Join(parts, "\n"), nil
			}
			parts = append(parts, l)
		}
	}
	parts := []string{}
	for strings.HasSuffix(line, `\`) {
		parts = append(parts, strings.TrimSuffix(line, `\`))
		if line, err = readLine(); err != nil {
			return "", err
		}
	}
	return strings.Join(append(parts, line), "\n"), nil
}

// slashCommand runs a /command; done reports that the REPL should end.
func (a *app) slashCommand(ctx context.Context, s *chatSession, line string) (done bool, err error) {
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case "/exit", "/quit":
		return true, nil
	case "/help":
		fmt.Fprint(a.io.Err, replHelp)
	case "/prompt", "/context":
		if name == "/context" && arg != "" {
			return false, usagef("/context takes no argument (/prompt TEXT shows a message's context)")
		}
		asm, err := s.chat.Assemble(ctx, &s.session, arg)
		if err != nil {
			return false, err
		}
		a.printAssembled(asm, name == "/prompt")
	case "/compact":
		if arg != "" {
			return false, usagef("/compact takes no argument")
		}
		return false, a.compact(ctx, s)
	case "/search":
		if arg == "" {
			return false, usagef("/search needs a query")
		}
		if s.mem == nil {
			return false, fmt.Errorf("the memory index is unavailable")
		}
		// What `agent memory search` prints, by the same code: its
		// snippets, escaped and fitted alike; no match is said, not an error.
		err := a.searchMemory(arg, func(opts index.SearchOptions) ([]index.Hit, error) { return s.mem.Search(ctx, arg, opts) })
		if errors.Is(err, errSilent) {
			err = nil
		}
		return false, err
	case "/remember":
		if arg == "" {
			return false, usagef("/remember needs the text of a fact")
		}
		r, err := memrev.AppendFact(ctx, s.ws.State, s.ws.Home, memrev.User, "/remember", arg, "", a.now)
		if err != nil {
			return false, err
		}
		a.warnf("remembered in %s:%d", r.Path, r.StartLine)
	case "/soul":
		doc, err := s.chat.Soul.Load(ctx)
		if err != nil {
			return false, err
		}
		fmt.Fprintln(a.io.Out, strings.TrimRight(doc.Content, "\n"))
	case "/profile":
		recs, err := s.chat.Profile.All(ctx)
		if err != nil {
			return false, err
		}
		fmt.Fprintln(a.io.Out, profile.Summary(recs))
	case "/new":
		s.session = core.Session{}
		a.warnf("new session")
	default:
		return false, usagef("unknown command %s (try /help)", name)
	}
	return false, nil
}

// ansiErr colours text meant for stderr (the prompt) when stderr is a TTY
// and NO_COLOR is unset.
func (a *app) ansiErr(code, s string) string {
	// TERM=dumb is a terminal that draws no escapes (Emacs' shell, some
	// CI logs): colour off there as with NO_COLOR, as stdout's is.
	if _, noColor := os.LookupEnv("NO_COLOR"); noColor || !a.io.ErrTTY || os.Getenv("TERM") == "dumb" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// termSize is the terminal's size as stderr sees it (where the REPL
// writes), 80×24 when it cannot be read.
func termSize() (width, height int) {
	w, h, err := term.GetSize(int(os.Stderr.Fd()))
	if err != nil || w <= 0 || h <= 0 {
		return 80, 24
	}
	return w, h
}
