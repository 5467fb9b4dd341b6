package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"agent/core"
	"agent/core/mcp"
	"agent/soul"
)

// sessionFlags choose which conversation a chat or prompt belongs to.
func sessionFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "continue", Aliases: []string{"c"}, Usage: "resume the most recent session"},
		&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: "use (or create) the session called `NAME`"},
		&cli.BoolFlag{Name: "new", Usage: "start a new session (the default)"},
		&cli.IntFlag{Name: "num-ctx", Usage: "context window in tokens sent as num_ctx", Value: core.DefaultNumCtx, Sources: cli.EnvVars("AGENT_NUM_CTX")},
		&cli.IntFlag{Name: "num-predict", Usage: "cap on reply tokens (0: the model's default); also the reply reserve", Sources: cli.EnvVars("AGENT_NUM_PREDICT")},
		&cli.StringFlag{Name: "recall-placement", Usage: "where recalled memory goes: `exchange` (with each message, cache-friendly) or layer (before all history)", Value: core.PlacementExchange, Sources: cli.EnvVars("AGENT_RECALL_PLACEMENT")},
	}
}

func (a *app) chatCommand() *cli.Command {
	return &cli.Command{
		Name:      "chat",
		Usage:     "talk to the assistant: a REPL on a terminal, one-shot with MESSAGE or piped stdin",
		ArgsUsage: "[MESSAGE]",
		Flags: append(sessionFlags(),
			&cli.BoolFlag{Name: "no-log", Usage: "do not append this conversation to today's log"},
			&cli.BoolFlag{Name: "auto-compact", Usage: "after a turn whose context dropped turns, have the model summarise them (as sessions compact; one more model call)", Sources: cli.EnvVars("AGENT_AUTO_COMPACT")},
			&cli.DurationFlag{Name: "keep-alive", Usage: "how long Ollama keeps the model loaded", Value: core.DefaultKeepAlive, Sources: cli.EnvVars("AGENT_KEEP_ALIVE")},
			&cli.DurationFlag{Name: "load-timeout", Usage: "give up if the first token takes longer (model loading)", Value: core.DefaultLoadTimeout, Sources: cli.EnvVars("AGENT_LOAD_TIMEOUT")},
			&cli.DurationFlag{Name: "stall-timeout", Usage: "give up if the reply stalls this long between tokens", Value: core.DefaultStallTimeout, Sources: cli.EnvVars("AGENT_STALL_TIMEOUT")},
		),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if a.redraws() {
				// A person watches stderr: a reply slow to begin shows
				// what it waits for (spinner.go).
				a.io.Err = &termErr{w: a.io.Err}
			}
			message, piped, err := a.messageInput(cmd)
			if err != nil {
				return err
			}
			sess, err := a.openChat(ctx, cmd, message)
			if err != nil {
				return err
			}
			defer sess.close()
			sess.chat.KeepAlive = cmd.Duration("keep-alive")
			sess.chat.NoLog = cmd.Bool("no-log")
			sess.chat.AutoCompact = cmd.Bool("auto-compact")
			sess.ollama.LoadTimeout = cmd.Duration("load-timeout")
			sess.ollama.StallTimeout = cmd.Duration("stall-timeout")
			a.remindersAtChatStart(ctx, sess.ws)
			if message == "" && !piped && a.io.InTTY {
				return a.repl(ctx, sess)
			}
			if strings.TrimSpace(message) == "" {
				return usagef("empty message: give one as an argument or on standard input")
			}
			return a.oneShot(ctx, sess, message)
		},
	}
}

// messageInput joins the arguments into the message. Standard input is read
// only when it is asked for: when there is no argument and stdin is not a
// terminal (`echo question | agent chat`), or where an argument is "-"
// (`git diff | agent chat "review this" -`: the input takes its place after
// a blank line). A script that calls `agent chat "$q"` inside a `while read`
// loop keeps its input. piped says whether stdin was read.
func (a *app) messageInput(cmd *cli.Command) (msg string, piped bool, err error) {
	args := cmd.Args().Slice()
	dash := slices.Index(args, "-")
	if len(args) > 0 && dash < 0 || len(args) == 0 && a.io.InTTY {
		return strings.Join(args, " "), false, nil
	}
	b, err := io.ReadAll(a.io.In)
	if err != nil {
		return "", false, fmt.Errorf("read standard input: %w", err)
	}
	in := strings.TrimRight(string(b), "\n")
	if dash < 0 {
		return in, true, nil
	}
	before := strings.Join(args[:dash], " ")
	after := strings.Join(slices.DeleteFunc(args[dash+1:], func(s string) bool { return s == "-" }), " ")
	parts := []string{}
	for _, p := range []string{before, in, after} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "\n\n"), true, nil
}

// chatSession is an open workspace, a chat over it and the current session.
type chatSession struct {
	ws      *core.Workspace
	chat    *core.Chat
	ollama  *core.Ollama // chat.Model, for the checks and timeouts only it has
	sent    *sentModel   // chat.Model as the chat calls it: what was sent (waiting.go)
	session core.Session
	mem     *core.IndexRecall
	mcp     *mcp.Manager // nil: no integrations
	notes   *noticeGate  // every note of the chat and its integrations
}

func (s *chatSession) close() {
	if s.mcp != nil {
		s.mcp.Close()
	}
	if s.mem != nil {
		s.mem.Close()
	}
	s.ws.Close()
}

// openChat opens the workspace and the memory index and picks the session
// from --continue / --session / --new. It does not contact Ollama. Given
// the one message to be sent (one-shot, agent prompt), it starts recalling
// memory for it at once, alongside everything else (core.RecallAhead).
func (a *app) openChat(ctx context.Context, cmd *cli.Command, message string) (*chatSession, error) {
	n := 0
	for _, f := range []string{"continue", "session", "new"} {
		if cmd.IsSet(f) {
			n++
		}
	}
	if n > 1 {
		return nil, usagef("--continue, --session and --new exclude each other")
	}
	if cmd.Int("num-ctx") < 256 {
		return nil, usagef("--num-ctx must be at least 256")
	}
	if cmd.Int("num-predict") < 0 {
		return nil, usagef("--num-predict must not be negative")
	}
	if err := core.ValidPlacement(cmd.String("recall-placement")); err != nil {
		return nil, err
	}
	home, err := core.ResolveHome(a.homeFlag)
	if err != nil {
		return nil, err
	}
	if err := core.Locate(home); err != nil {
		// First contact: a person at a terminal who runs `agent chat` before
		// `agent init` gets the workspace made and the first meeting
		// (bootstrap) started; a script keeps the clear error.
		if !errors.Is(err, core.ErrNoWorkspace) || !a.firstContact(cmd, message) {
			return nil, err
		}
		ws, _, err := core.Init(ctx, home)
		if err != nil {
			return nil, err
		}
		_, err = a.loadSoul(ctx, soul.NewStore(ws.State, ws.Path(core.SoulFile), a.now))
		if err == nil {
			_, err = a.buildIndex(ctx, ws)
		}
		ws.Close()
		if err != nil {
			return nil, err
		}
		a.warnf("created your workspace at %s (your notes, persona and memory live there); let's get to know each other", home)
	}
	emb, err := a.embedder()
	if err != nil {
		return nil, err
	}
	var mem *core.IndexRecall
	var recaller core.Recaller
	zone := time.Local // the user's, once state.db is open
	recall := func() { // started ahead, once the logs are whole
		var err error
		loc := zone
		now := func() time.Time { return a.now().In(loc) }
		if mem, recaller, err = core.OpenRecall(ctx, home, message, now, emb, func(msg string) { a.warnf("%s", msg) }); err != nil {
			a.warnf("memory index unavailable, chatting without recall: %v", err)
		}
	}
	closeMem := func() {
		if mem != nil {
			mem.Close() // waits for the recall started ahead, which holds it
		}
	}
	opening := a.opening()
	opening.Ahead = recall
	ws, err := core.OpenWith(ctx, home, opening)
	if err != nil && cmd.Name == "prompt" {
		// prompt only reads: on a disk that refuses writes it shows what
		// chat would send from what is there, as search does.
		ws, err = a.openReadOnlyAfter(ctx, err)
		if err == nil && mem == nil {
			recall()
		}
	}
	if err != nil {
		closeMem()
		return nil, err
	}
	if ws.Changed {
		// The open settled a forget: the recall started ahead may have
		// read what it took back, so it starts again (rare).
		closeMem()
		recall()
	}
	a.zone = core.WorkspaceZone(ctx, ws)
	if t := a.now(); mem != nil && t.In(a.zone).Format(time.DateOnly) != t.In(zone).Format(time.DateOnly) {
		// The recall started ahead read the message's time words
		// ("yesterday") in local time, whose date is not the user's now.
		closeMem()
		zone = a.zone
		recall()
	} else if mem != nil {
		loc := a.zone // for the turns after the first (a REPL's, past midnight)
		mem.SetNow(func() time.Time { return a.now().In(loc) })
	}
	o, err := core.NewOllama(nil)
	if err != nil {
		ws.Close()
		closeMem()
		return nil, err
	}
	if cmd.Name != "prompt" { // prompt shows the request, never sends it
		core.SayRemote(home, o.Host(), core.RemoteForChat, func(msg string) { a.warnf("%s", msg) })
	}
	return a.newChatSession(ctx, cmd, ws, o, mem, recaller)
}

// firstContact says whether a missing workspace may be created for this
// chat: an interactive REPL (no message, a terminal on both ends) of the
// chat command itself, not agent prompt.
func (a *app) firstContact(cmd *cli.Command, message string) bool {
	return cmd.Name == "chat" && message == "" && a.io.InTTY && a.io.OutTTY
}

// newChatSession builds the chat over what openChat opened, which it owns
// from here on, and picks the session.
func (a *app) newChatSession(ctx context.Context, cmd *cli.Command, ws *core.Workspace, o *core.Ollama, mem *core.IndexRecall, recaller core.Recaller) (*chatSession, error) {
	chat := core.NewChat(ws, o, a.model, recaller)
	sent := &sentModel{Model: chat.Model}
	chat.Model = sent
	var err error
	chat.NumCtx = int(cmd.Int("num-ctx"))
	chat.NumPredict = int(cmd.Int("num-predict"))
	chat.Placement = cmd.String("recall-placement")
	chat.Now = a.now
	s := &chatSession{ws: ws, chat: chat, ollama: o, sent: sent, mem: mem, notes: newNoticeGate(func(msg string) { a.warnf("%s", msg) })}
	chat.Notify = s.notes.note
	a.startIntegrations(ctx, s)
	var started bool
	s.session, started, err = chat.PickSession(ctx, cmd.Bool("continue"), cmd.String("session"))
	if started {
		a.infof("no previous session to continue: starting a new one")
	}
	if err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// ensureSession creates the session on first use, so `agent prompt`, a
// REPL that is left without a word and a chat that cannot start create
// nothing. A session named by --session keeps its name; others are named
// from the clock in the user's zone.
func (s *chatSession) ensureSession(ctx context.Context) error {
	if s.session.ID != 0 {
		return nil
	}
	var err error
	s.session, err = s.chat.StartSession(ctx, s.session.Name)
	return err
}

// checkModel asks Ollama whether it is reachable and has the model, before
// the first turn, so the user gets an actionable message rather than a
// failure mid-stream. A model with a smaller window than --num-ctx gets its
// own size.
func (a *app) checkModel(ctx context.Context, s *chatSession) error {
	info, err := s.ollama.Check(ctx, s.chat.ModelName)
	if err != nil {
		return err
	}
	a.useModelInfo(s, info)
	return nil
}

// waitingFor says what a turn waits for until its first token.
func waitingFor(s *chatSession) string {
	return "waiting for " + s.chat.ModelName
}

// useModelInfo caps num_ctx at the model's own context length and, for a
// model without tool calling, chats without tools.
func (a *app) useModelInfo(s *chatSession, info core.ModelInfo) {
	s.chat.ModelCtx = info.ContextLength
	if info.ContextLength > 0 && info.ContextLength < s.chat.NumCtx {
		s.chat.NumCtx = info.ContextLength
	}
	a.useModelCapabilities(s, info)
}

func (a *app) oneShot(ctx context.Context, s *chatSession, message string) error {
	if err := a.checkModel(ctx, s); err != nil {
		if !errors.Is(err, core.ErrModelUnavailable) {
			return err
		}
		// The model cannot answer now; the message is kept, marked, in its
		// session, so --continue finds it when the model is back.
		if serr := s.ensureSession(ctx); serr != nil {
			return errors.Join(err, serr)
		}
		if _, serr := s.chat.Sessions.Append(context.WithoutCancel(ctx), &s.session, core.StoredMessage{Role: "user", Content: message, Status: core.StatusError}); serr != nil {
			return errors.Join(err, serr)
		}
		if a.jsonOut {
			a.writeJSON(&core.TurnResult{Session: s.session.Name, ToolCalls: []core.ToolResult{}, Layers: []core.Layer{}, Cuts: []string{}, Notices: []string{}, Error: err.Error()})
		}
		return fmt.Errorf("%w\nyour message is saved in session %s, marked unanswered", err, s.session.Name)
	}
	if err := s.ensureSession(ctx); err != nil {
		return err
	}
	if s.mcp != nil {
		s.mcp.Prepare(ctx) // lists only servers with no cached tools
	}
	var onToken func(string)
	stream := &replyStream{w: a.io.Out, gate: s.notes}
	if !a.jsonOut {
		onToken = stream.token
		stream.wait = a.startWait(waitingFor(s), waitProbe(s))
	}
	res, err := s.chat.Turn(ctx, &s.session, message, onToken)
	stream.end()
	if a.jsonOut && res != nil {
		// Every outcome once the session exists: scripts read
		// "interrupted" and "error" rather than guess from the exit code.
		if err != nil {
			res.Error = err.Error()
		}
		if werr := a.writeJSON(res); err == nil {
			err = werr
		}
	}
	if err != nil {
		return turnError(err)
	}
	return nil
}

// turnError words a failed turn for the user: what happened to their
// message and reply, then why.
func turnError(err error) error {
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("interrupted: your message and the partial reply are saved in the session")
	}
	if errors.Is(err, core.ErrModelUnavailable) {
		return fmt.Errorf("%w\nyour message is saved in the session; a partial reply, if any, is saved and marked", err)
	}
	return err
}
