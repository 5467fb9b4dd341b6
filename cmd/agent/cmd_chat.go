package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"agent/core"
)

// sessionFlags choose which conversation a chat or prompt belongs to.
func sessionFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "continue", Aliases: []string{"c"}, Usage: "resume the most recent session"},
		&cli.StringFlag{Name: "session", Aliases: []string{"s"}, Usage: "use (or create) the session called `NAME`"},
		&cli.BoolFlag{Name: "new", Usage: "start a new session (the default)"},
		&cli.IntFlag{Name: "num-ctx", Usage: "context window in tokens sent as num_ctx", Value: core.DefaultNumCtx, Sources: cli.EnvVars("AGENT_NUM_CTX")},
		&cli.IntFlag{Name: "num-predict", Usage: "cap on reply tokens (0: the model's default); also the reply reserve", Sources: cli.EnvVars("AGENT_NUM_PREDICT")},
	}
}

func (a *app) chatCommand() *cli.Command {
	return &cli.Command{
		Name:      "chat",
		Usage:     "talk to the assistant: a REPL on a terminal, one-shot with MESSAGE or piped stdin",
		ArgsUsage: "[MESSAGE]",
		Flags: append(sessionFlags(),
			&cli.BoolFlag{Name: "no-log", Usage: "do not append this conversation to today's log"},
			&cli.DurationFlag{Name: "keep-alive", Usage: "how long Ollama keeps the model loaded", Value: core.DefaultKeepAlive, Sources: cli.EnvVars("AGENT_KEEP_ALIVE")},
			&cli.DurationFlag{Name: "load-timeout", Usage: "give up if the first token takes longer (model loading)", Value: core.DefaultLoadTimeout, Sources: cli.EnvVars("AGENT_LOAD_TIMEOUT")},
			&cli.DurationFlag{Name: "stall-timeout", Usage: "give up if the reply stalls this long between tokens", Value: core.DefaultStallTimeout, Sources: cli.EnvVars("AGENT_STALL_TIMEOUT")},
		),
		Action: func(ctx context.Context, cmd *cli.Command) error {
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

// messageInput joins the arguments into the message and, when standard input
// is not a terminal, adds what it carries (so `git diff | agent chat
// "review this"` works). piped says whether stdin was read.
func (a *app) messageInput(cmd *cli.Command) (msg string, piped bool, err error) {
	msg = strings.Join(cmd.Args().Slice(), " ")
	if a.io.InTTY {
		return msg, false, nil
	}
	b, err := io.ReadAll(a.io.In)
	if err != nil {
		return "", false, fmt.Errorf("read standard input: %w", err)
	}
	in := strings.TrimRight(string(b), "\n")
	switch {
	case in == "":
	case msg == "":
		msg = in
	default:
		msg = msg + "\n\n" + in
	}
	return msg, true, nil
}

// chatSession is an open workspace, a chat over it and the current session.
type chatSession struct {
	ws      *core.Workspace
	chat    *core.Chat
	ollama  *core.Ollama // chat.Model, for the checks and timeouts only it has
	session core.Session
	mem     *core.IndexRecall
}

func (s *chatSession) close() {
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
	home, err := core.ResolveHome(a.homeFlag)
	if err != nil {
		return nil, err
	}
	if err := core.Locate(home); err != nil {
		return nil, err
	}
	mem, err := core.OpenIndexRecall(ctx, home, func(msg string) { a.warnf("%s", msg) })
	if err != nil {
		a.warnf("memory index unavailable, chatting without recall: %v", err)
		mem = nil
	}
	var recaller core.Recaller
	if mem != nil {
		recaller = mem
		if strings.TrimSpace(message) != "" {
			recaller = core.RecallAhead(ctx, mem, message, core.DefaultRecallK)
		}
	}
	closeMem := func() {
		if mem != nil {
			mem.Close() // waits for the recall started ahead, which holds it
		}
	}
	ws, err := core.Open(ctx, home)
	if err != nil {
		closeMem()
		return nil, err
	}
	o, err := core.NewOllama(nil)
	if err != nil {
		ws.Close()
		closeMem()
		return nil, err
	}
	return a.newChatSession(ctx, cmd, ws, o, mem, recaller)
}

// newChatSession builds the chat over what openChat opened, which it owns
// from here on, and picks the session.
func (a *app) newChatSession(ctx context.Context, cmd *cli.Command, ws *core.Workspace, o *core.Ollama, mem *core.IndexRecall, recaller core.Recaller) (*chatSession, error) {
	chat := core.NewChat(ws, o, a.model, recaller)
	var err error
	chat.NumCtx = int(cmd.Int("num-ctx"))
	chat.NumPredict = int(cmd.Int("num-predict"))
	chat.Now = a.now
	chat.Notify = func(msg string) { a.warnf("%s", msg) }
	s := &chatSession{ws: ws, chat: chat, ollama: o, mem: mem}
	switch {
	case cmd.Bool("continue"):
		s.session, err = chat.Sessions.Latest(ctx)
	case cmd.String("session") != "":
		s.session, err = chat.Sessions.Named(ctx, cmd.String("session"), chat.ModelName)
	}
	if err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// ensureSession creates the session on first use, so `agent prompt` and a
// REPL that is left without a word create nothing.
func (s *chatSession) ensureSession(ctx context.Context) error {
	if s.session.ID != 0 {
		return nil
	}
	var err error
	s.session, err = s.chat.Sessions.Create(ctx, "", s.chat.ModelName)
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
	if info.ContextLength > 0 && info.ContextLength < s.chat.NumCtx {
		s.chat.NumCtx = info.ContextLength
	}
	return nil
}

func (a *app) oneShot(ctx context.Context, s *chatSession, message string) error {
	if err := a.checkModel(ctx, s); err != nil {
		return err
	}
	if err := s.ensureSession(ctx); err != nil {
		return err
	}
	var onToken func(string)
	if !a.jsonOut {
		onToken = func(tok string) { io.WriteString(a.io.Out, tok) }
	}
	res, err := s.chat.Turn(ctx, &s.session, message, onToken)
	if !a.jsonOut && res != nil && res.Reply != "" && !strings.HasSuffix(res.Reply, "\n") {
		io.WriteString(a.io.Out, "\n")
	}
	if err != nil {
		return turnError(err)
	}
	if a.jsonOut {
		return a.writeJSON(res)
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
