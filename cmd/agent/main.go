// Command agent is a local-first personal assistant for the terminal.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/urfave/cli/v3"

	"agent/core"
)

// version is stamped by the Makefile from git.
var version = "dev"

func main() {
	os.Exit(run(context.Background(), os.Args, systemStreams()))
}

// app is what every command's action needs: the streams and the global flags.
type app struct {
	io    *iostreams
	errMu sync.Mutex // one warnf line at a time on io.Err
	now   func() time.Time
	// detachSignals stops SIGINT/SIGTERM from cancelling the command's
	// context, for the REPL, where Ctrl-C cancels only the reply in progress.
	detachSignals func()
	// args is the command line as typed, for naming a flag as typed.
	args []string
	// Set from the global flags before any action runs.
	homeFlag string
	jsonOut  bool
	quiet    bool
	model    string
	// modelAsked: --model or AGENT_MODEL named the model (jobs install
	// writes it into the tick only then).
	modelAsked bool
	// embedModel names the embedding model that adds meaning to memory
	// search and recall (cmd_embed.go); "" leaves them lexical.
	embedModel string
	// zone is the user's zone (profile user.timezone, else the machine's),
	// read when the workspace is opened: every time shown to a person is
	// said in it (personTime).
	zone *time.Location
}

// run parses args, runs one command and returns the process exit code. It is
// the whole program; tests call it directly with their own streams.
func run(ctx context.Context, args []string, streams *iostreams) int {
	ctx, detach := cancelOnSignal(ctx)
	defer detach()
	// A reader that goes away (`agent chat … | head -c 20`) must not kill
	// the process mid-turn: with SIGPIPE handled, a write to the closed
	// stdout fails with EPIPE instead, the turn is stored in full, and the
	// command ends quietly. (Notify, not Ignore: an editor we start must
	// not inherit an ignored SIGPIPE.)
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	now, err := clock(os.Getenv)
	a := &app{io: streams, now: now, detachSignals: detach, args: args}
	root := a.rootCommand()
	args = helpArgs(root, args)
	if err == nil {
		err = checkCommandWord(root, args)
	}
	if err == nil {
		err = envUsageError(root.Run(ctx, args))
	}
	err = a.inDiskTerms(err)
	if errors.Is(err, syscall.EPIPE) {
		return exitOK // the reader left; there is nobody to tell
	}
	if err != nil {
		reportError(streams.Err, err)
	}
	return exitCode(err)
}

// stopSignals end a command the way Ctrl-C does: the terminal closing
// (SIGHUP) and `kill` or a service manager's stop (SIGTERM) too, so a reply
// in progress is stored and marked and the locks are released.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// cancelOnSignal returns a context cancelled by any of stopSignals, and a
// function that stops listening without cancelling it (unlike
// signal.NotifyContext's stop), so the REPL can take them over and keep its
// context alive.
func cancelOnSignal(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, stopSignals...)
	done := make(chan struct{})
	var once sync.Once
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
		}
	}()
	return ctx, func() {
		once.Do(func() {
			signal.Stop(sigs)
			close(done)
		})
	}
}

func (a *app) rootCommand() *cli.Command {
	useHelpPrinter()
	root := &cli.Command{
		Name:    "agent",
		Usage:   "a local-first personal assistant for the terminal",
		Version: version,
		Reader:  a.io.In,
		Writer:  &helpOut{Writer: a.io.Out, cols: a.io.helpCols()},
		// Help is asked-for data and goes to stdout; everything else unasked
		// goes to stderr.
		ErrWriter: a.io.Err,
		// `agent completion bash|zsh|fish` prints the script a shell
		// sources (urfave/cli's, as gh and kubectl ship one).
		EnableShellCompletion: true,
		ConfigureShellCompletionCommand: func(c *cli.Command) {
			c.Hidden = false
			c.Usage = "print a shell completion script: agent completion bash|zsh|fish"
		},
		UseShortOptionHandling: false,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "home", Usage: "workspace directory", Sources: cli.EnvVars("AGENT_HOME"), DefaultText: "~/.agent"},
			&cli.StringFlag{Name: "model", Usage: "Ollama model", Sources: cli.EnvVars("AGENT_MODEL"), Value: core.DefaultModel},
			&cli.StringFlag{Name: "embed-model", Usage: "Ollama embedding model for memory search by meaning, e.g. nomic-embed-text (off when empty)", Sources: cli.EnvVars("AGENT_EMBED_MODEL")},
			&cli.BoolFlag{Name: "json", Usage: "stable JSON output on stdout"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress or summaries on stderr"},
		},
		Before: func(ctx context.Context, cmd *cli.Command) (context.Context, error) {
			a.homeFlag = cmd.String("home")
			a.jsonOut = cmd.Bool("json")
			a.quiet = cmd.Bool("quiet")
			// An empty AGENT_MODEL or --model "" means the default, as an
			// empty AGENT_HOME does; a name Ollama could never accept is a
			// usage error here rather than a failed pull later.
			a.model = strings.TrimSpace(cmd.String("model"))
			a.modelAsked = a.model != "" && cmd.IsSet("model")
			if a.model == "" {
				a.model = core.DefaultModel
			}
			if err := core.ValidModelName(a.model); err != nil {
				return ctx, err
			}
			a.embedModel = strings.TrimSpace(cmd.String("embed-model"))
			if a.embedModel != "" {
				if err := core.ValidModelName(a.embedModel); err != nil {
					return ctx, err
				}
			}
			return ctx, nil
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return unknownCommand(cmd, cmd.Args().First())
			}
			return cli.ShowRootCommandHelp(cmd)
		},
		ExitErrHandler: func(context.Context, *cli.Command, error) {}, // exit codes are decided in run
		Commands: []*cli.Command{
			a.initCommand(),
			a.chatCommand(),
			a.sessionsCommand(),
			a.forgetCommand(),
			a.promptCommand(),
			a.memoryCommand(),
			a.importCommand(),
			a.logCommand(),
			a.profileCommand(),
			a.soulCommand(),
			a.doctorCommand(),
			a.mcpCommand(),
			a.skillsCommand(),
			a.remindCommand(), a.remindersCommand(), a.jobsCommand(),
			a.syncCommand(), a.mergeFileCommand(),
		},
	}
	for _, name := range []string{"sessions", "skills", "mcp", "jobs", "import"} {
		listByDefault(root.Command(name))
	}
	a.setUsageErrors(root)
	return root
}

// setUsageErrors makes every flag-parsing mistake a usageError (exit 2, one
// "agent: " line) instead of urfave's help dump on stdout, naming flags as
// the user types them (--num-ctx, not -num-ctx).
func (a *app) setUsageErrors(cmd *cli.Command) {
	cmd.OnUsageError = func(_ context.Context, c *cli.Command, err error, _ bool) error {
		msg := strings.ToLower(err.Error()[:1]) + err.Error()[1:]
		// A value of the wrong kind is told in the user's terms, not strconv's.
		if m := badFlagValue().FindStringSubmatch(err.Error()); m != nil {
			if kind := valueKind(m[3]); kind != "" {
				return usagef("%s takes %s, got %q", flagName(m[2]), kind, m[1])
			}
		}
		msg = goStyleFlag().ReplaceAllString(msg, "flag --$1")
		// A value that starts with '-' is read as a flag: say how to pass it.
		if f, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: "); ok {
			msg = a.unknownFlagUsage(c, f)
		}
		return usagef("%s", msg)
	}
	cmd.HideHelpCommand = true
	for _, sub := range cmd.Commands {
		a.setUsageErrors(sub)
	}
}

var badFlagValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^invalid value "(.*)" for flag -([\w-]+): (.*)$`)
})

var goStyleFlag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`flag -([a-z][a-z0-9-]+)`) })

// envParse is how urfave/cli words a variable it could not parse. It reports
// it before any flag is parsed, outside OnUsageError, so it is recognised
// here by its wording (pinned by go.mod, and by a transcript test).
var envParse = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^could not parse "(.*)" as \S+ value from environment variable "(\w+)" for flag ([\w-]+): (.*)$`)
})

// envUsageError makes a bad value in an environment variable the usage
// error (exit 2) the same value given as a flag is, naming the variable.
func envUsageError(err error) error {
	if err == nil {
		return nil
	}
	m := envParse().FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	if kind := valueKind(m[4]); kind != "" {
		return usagef("%s (read as --%s) takes %s, got %q", m[2], m[3], kind, m[1])
	}
	return usagef("invalid value %q in %s (read as --%s): %s", m[1], m[2], m[3], m[4])
}

// memoryCommand groups the memory subcommands; writing (add) and the index
// (reindex, search, watch, status) live in their own files.
func (a *app) memoryCommand() *cli.Command {
	return &cli.Command{
		Name:     "memory",
		Usage:    "add to, index and search MEMORY.md and the daily logs",
		Commands: append(append(append(a.memoryWriteCommands(), a.memoryIndexCommands()...), a.memoryDistillCommands()...), a.memorySourcesCommand()),
		Action:   a.requireSubcommand,
	}
}

// requireSubcommand is the action of a command group without a listing,
// called without a subcommand: its help, asked for in effect (as `gh repo`
// prints its own), exit 0.
func (a *app) requireSubcommand(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Present() {
		return unknownCommand(cmd, cmd.Args().First())
	}
	return cli.ShowSubcommandHelp(cmd)
}

// listByDefault makes a group called without a subcommand run its list
// subcommand, with that subcommand's flags (`agent sessions -n 5` is
// `agent sessions list -n 5`), as `agent reminders` and gh's groups do. Only
// one command is parsed per run, so the two may share the flag values.
func listByDefault(group *cli.Command) {
	list := group.Command("list")
	if list == nil {
		panic("listByDefault: " + group.Name + " has no list subcommand")
	}
	// Local: the group's other subcommands must not take list's flags
	// (`sessions delete NAME -n 5` would be accepted and do nothing with it).
	for _, f := range list.Flags {
		switch f := f.(type) {
		case *cli.IntFlag:
			f.Local = true
		case *cli.BoolFlag:
			f.Local = true
		case *cli.StringFlag:
			f.Local = true
		default:
			panic(fmt.Sprintf("listByDefault: %s list: flag %T cannot be made local", group.Name, f))
		}
	}
	group.Flags = append(group.Flags, list.Flags...)
	group.Action = func(ctx context.Context, cmd *cli.Command) error {
		if cmd.Args().Present() {
			return unknownCommand(cmd, cmd.Args().First())
		}
		return list.Action(ctx, cmd)
	}
	if !strings.Contains(group.Usage, "(default)") {
		group.Usage += "; list (default)"
	}
}

// openWorkspace resolves the home and opens it, with every rule of opening
// (core.OpenWith); the error names the path and the fix when the workspace
// does not exist.
func (a *app) openWorkspace(ctx context.Context) (*core.Workspace, error) {
	home, err := core.ResolveHome(a.homeFlag)
	if err != nil {
		return nil, err
	}
	ws, err := core.OpenWith(ctx, home, a.opening())
	if err != nil {
		return nil, err
	}
	a.zone = core.WorkspaceZone(ctx, ws)
	return ws, nil
}

// opening is how opening a workspace tells what it did: problems on
// stderr, what it changed too unless --quiet.
func (a *app) opening() core.OpenOptions {
	return core.OpenOptions{
		Warn: func(msg string) { a.warnf("%s", msg) },
		Info: func(msg string) { a.infof("%s", msg) },
		Now:  a.now,
	}
}

// warnf prints a diagnostic on stderr in the house style. It may be
// called from another goroutine than the command's (a recall started ahead
// says the index could not be refreshed while the command prints), so a
// line is written whole, one at a time.
func (a *app) warnf(format string, args ...any) {
	line := errLines(fmt.Sprintf(format, args...), errCols(a.io.Err))
	a.errMu.Lock()
	defer a.errMu.Unlock()
	io.WriteString(a.io.Err, line)
}

// infof prints progress or a summary on stderr unless --quiet.
func (a *app) infof(format string, args ...any) {
	if !a.quiet {
		a.warnf(format, args...)
	}
}

// emptyHint says on stderr that a listing is empty, and how to add to it,
// when a person reads stderr: piped or --json, the empty output (and the
// exit code) say it to a script, which a hint would only clutter.
func (a *app) emptyHint(format string, args ...any) {
	if a.io.ErrTTY && !a.jsonOut {
		a.infof(format, args...)
	}
}

// confirm asks a yes-or-no question on stderr ("agent: QUESTION [y/N] ")
// and reads one line of stdin: yes only for "y" or "yes", in any case;
// anything else, or no answer, is no. It reads a byte at a time, so what
// follows the line stays for whoever reads stdin next. The caller checks
// that stdin and stderr are a terminal.
func (a *app) confirm(question string) bool {
	fmt.Fprintf(a.io.Err, "agent: %s [y/N] ", question)
	var line []byte
	b := make([]byte, 1)
	for {
		n, err := a.io.In.Read(b)
		if n == 1 {
			if b[0] == '\n' {
				break
			}
			line = append(line, b[0])
		}
		if err != nil {
			break
		}
	}
	ans := strings.ToLower(strings.TrimSpace(string(line)))
	return ans == "y" || ans == "yes"
}
