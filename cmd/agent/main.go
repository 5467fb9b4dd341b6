// Command agent is a local-first personal assistant for the terminal.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
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
	io  *iostreams
	now func() time.Time
	// detachSignals stops SIGINT/SIGTERM from cancelling the command's
	// context, for the REPL, where Ctrl-C cancels only the reply in progress.
	detachSignals func()
	// Set from the global flags before any action runs.
	homeFlag string
	jsonOut  bool
	quiet    bool
	model    string
}

// run parses args, runs one command and returns the process exit code. It is
// the whole program; tests call it directly with their own streams.
func run(ctx context.Context, args []string, streams *iostreams) int {
	ctx, detach := cancelOnSignal(ctx)
	defer detach()
	a := &app{io: streams, now: time.Now, detachSignals: detach}
	root := a.rootCommand()
	err := root.Run(ctx, args)
	if err != nil {
		reportError(streams.Err, err)
	}
	return exitCode(err)
}

// cancelOnSignal returns a context cancelled by SIGINT or SIGTERM, and a
// function that stops listening without cancelling it (unlike
// signal.NotifyContext's stop), so the REPL can take Ctrl-C over and keep
// its context alive.
func cancelOnSignal(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
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
	root := &cli.Command{
		Name:    "agent",
		Usage:   "a local-first personal assistant for the terminal",
		Version: version,
		Reader:  a.io.In,
		Writer:  a.io.Out,
		// Help is asked-for data and goes to stdout; everything else unasked
		// goes to stderr.
		ErrWriter:              a.io.Err,
		EnableShellCompletion:  false,
		UseShortOptionHandling: false,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "home", Usage: "workspace directory", Sources: cli.EnvVars("AGENT_HOME"), DefaultText: "~/.agent"},
			&cli.StringFlag{Name: "model", Usage: "Ollama model", Sources: cli.EnvVars("AGENT_MODEL"), Value: core.DefaultModel},
			&cli.BoolFlag{Name: "json", Usage: "stable JSON output on stdout"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress or summaries on stderr"},
		},
		Before: func(ctx context.Context, cmd *cli.Command) (context.Context, error) {
			a.homeFlag = cmd.String("home")
			a.jsonOut = cmd.Bool("json")
			a.quiet = cmd.Bool("quiet")
			a.model = cmd.String("model")
			return ctx, nil
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usagef("unknown command %q (run: agent --help)", cmd.Args().First())
			}
			return cli.ShowRootCommandHelp(cmd)
		},
		ExitErrHandler: func(context.Context, *cli.Command, error) {}, // exit codes are decided in run
		Commands: []*cli.Command{
			a.initCommand(),
			a.chatCommand(),
			a.sessionsCommand(),
			a.promptCommand(),
			a.memoryCommand(),
			a.logCommand(),
			a.profileCommand(),
			a.soulCommand(),
			a.doctorCommand(),
			a.remindCommand(), a.remindersCommand(), a.jobsCommand(),
		},
	}
	setUsageErrors(root)
	return root
}

// setUsageErrors makes every flag-parsing mistake a usageError (exit 2, one
// "agent: " line) instead of urfave's help dump on stdout.
func setUsageErrors(cmd *cli.Command) {
	cmd.OnUsageError = func(_ context.Context, _ *cli.Command, err error, _ bool) error {
		return usagef("%s", strings.ToLower(err.Error()[:1])+err.Error()[1:])
	}
	cmd.HideHelpCommand = true
	for _, sub := range cmd.Commands {
		setUsageErrors(sub)
	}
}

// memoryCommand groups the memory subcommands; writing (add) and the index
// (reindex, search, watch, status) live in their own files.
func (a *app) memoryCommand() *cli.Command {
	return &cli.Command{
		Name:     "memory",
		Usage:    "add to, index and search MEMORY.md and the daily logs",
		Commands: append(a.memoryWriteCommands(), a.memoryIndexCommands()...),
		Action:   a.requireSubcommand,
	}
}

// requireSubcommand is the action of a command group called without one.
func (a *app) requireSubcommand(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Present() {
		return usagef("unknown command %q for %q (run: agent %s --help)", cmd.Args().First(), cmd.Name, cmd.Name)
	}
	return usagef("%q needs a subcommand (run: agent %s --help)", cmd.Name, cmd.Name)
}

// openWorkspace resolves the home and opens it; the error names the path and
// the fix when the workspace does not exist.
func (a *app) openWorkspace(ctx context.Context) (*core.Workspace, error) {
	home, err := core.ResolveHome(a.homeFlag)
	if err != nil {
		return nil, err
	}
	return core.Open(ctx, home)
}

// warnf prints a diagnostic on stderr in the house style.
func (a *app) warnf(format string, args ...any) {
	fmt.Fprintf(a.io.Err, "agent: "+format+"\n", args...)
}

// infof prints progress or a summary on stderr unless --quiet.
func (a *app) infof(format string, args ...any) {
	if !a.quiet {
		a.warnf(format, args...)
	}
}
