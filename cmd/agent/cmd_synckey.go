package main

import (
	"context"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v3"

	"agent/core"
	"agent/core/forgotten"
)

// ForgetKeyEnv gives `agent init --from` the forget key of the devices it
// joins (docs/decisions-forgetsync.md).
const ForgetKeyEnv = "AGENT_FORGET_KEY"

// syncKeyCommand shows this workspace's forget key, or adds one copied
// from another device: what a forget journals is keyed by it, so only the
// user's devices can apply (or read anything of) a forget.
func (a *app) syncKeyCommand() *cli.Command {
	return &cli.Command{
		Name:  "key",
		Usage: "print this workspace's forget key, for your other devices; --add reads one from standard input",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "add", Usage: "read a key another device printed from standard input; forgets made here use it"}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usagef("sync key takes no arguments (the key is read from standard input, never a command line)")
			}
			ws, err := a.openWorkspace(ctx)
			if err != nil {
				return err
			}
			defer ws.Close()
			if !cmd.Bool("add") {
				k, err := forgotten.Current(ctx, ws.State, a.now())
				if err != nil {
					return err
				}
				a.infof("keep it secret; on each other device: agent sync key --add (paste it), or %s=… agent init --from URL", ForgetKeyEnv)
				_, err = io.WriteString(a.io.Out, k.String()+"\n")
				return err
			}
			b, err := io.ReadAll(io.LimitReader(a.io.In, 1<<10))
			if err != nil {
				return err
			}
			return a.addForgetKey(ctx, ws, string(b))
		},
	}
}

// addForgetKey adds a key the user copied, then applies the forgets that
// waited for it.
func (a *app) addForgetKey(ctx context.Context, ws *core.Workspace, text string) error {
	k, err := forgotten.ParseKey(text)
	if err != nil {
		return usagef("%v", err)
	}
	if err := forgotten.Add(ctx, ws.State, k, a.now()); err != nil {
		return err
	}
	a.infof("forget key %s added: forgets made here use it", k.ID)
	return a.opening().ForgetPending(ctx, ws.Home, ws.State)
}

// forgetKeyFromEnv adds the key init --from was given, if any.
func (a *app) forgetKeyFromEnv(ctx context.Context, ws *core.Workspace) error {
	text := strings.TrimSpace(os.Getenv(ForgetKeyEnv))
	if text == "" {
		return nil
	}
	return a.addForgetKey(ctx, ws, text)
}
