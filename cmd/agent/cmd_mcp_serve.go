package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"

	"agent/core"
	"agent/core/mcpserve"
)

// mcpServeCommand: agent mcp serve, the workspace's memory as an MCP server
// for other agents (docs/cli-mcp-serve.md).
func (a *app) mcpServeCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve your memory to other agents (Claude Code, Codex, Cursor, Gemini CLI) over MCP: stdio, or --http ADDR",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "http", Usage: "serve streamable HTTP at `ADDR` (e.g. 127.0.0.1:8765) under /mcp, with a bearer token"},
			&cli.BoolFlag{Name: "allow-remote", Usage: "let --http listen on an address other than loopback"},
			&cli.BoolFlag{Name: "read-only", Usage: "offer no tool that writes (memory_remember)"},
		},
		Action: a.runMCPServe,
	}
}

func (a *app) runMCPServe(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Present() {
		return usagef("serve takes no arguments")
	}
	addr := cmd.String("http")
	if addr != "" {
		if err := mcpserve.CheckAddr(addr, cmd.Bool("allow-remote")); err != nil {
			return usagef("%v", err)
		}
	}
	ws, err := a.openWorkspace(ctx)
	if err != nil {
		return err
	}
	defer ws.Close()
	loc, err := a.userLocation(ctx, ws)
	if err != nil {
		return err
	}
	recall, err := core.OpenIndexRecall(ctx, ws.Home, func(msg string) { a.warnf("%s", msg) })
	if err != nil {
		return err
	}
	defer recall.Close()
	recall.SetNow(func() time.Time { return a.now().In(loc) })
	// A server lives long, like the REPL: the files are watched, so a
	// search need not walk them; what another process or an editor
	// changed still reaches the next search (memory.Monitor).
	if err := recall.WatchFiles(ws.Home); err != nil {
		a.warnf("not watching the memory files (%v): each search checks them instead", err)
	}
	srv := mcpserve.New(mcpserve.Options{Home: ws.Home, State: ws.State, Recall: recall,
		Zone: loc, Now: a.now, ReadOnly: cmd.Bool("read-only"), Version: version})
	if addr == "" {
		if a.io.InTTY {
			a.infof("serving MCP on standard input and output, for a client that starts this command (docs/cli-mcp-serve.md); Ctrl-D ends")
		}
		// stdout is the protocol's: nothing else may be written there.
		err := srv.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(a.io.In), Writer: nopWriteCloser{a.io.Out}})
		if ctx.Err() != nil || err == nil {
			return nil
		}
		// The client is gone, or sent what is not JSON-RPC: nothing
		// it sent after that was acted on.
		return fmt.Errorf("mcp serve: the client's messages: %w", err)
	}
	token, created, err := mcpserve.Token(ws.Home, os.Getenv(mcpserve.TokenEnv))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	switch {
	case created:
		a.warnf("token for HTTP clients (shown once; kept in %s): %s", mcpserve.TokenFile, token)
	case os.Getenv(mcpserve.TokenEnv) == "":
		a.infof("HTTP clients give the token kept in %s", mcpserve.TokenFile)
	}
	a.infof("serving MCP at http://%s%s", ln.Addr(), mcpserve.Path)
	return mcpserve.Serve(ctx, ln, mcpserve.Handler(srv, token))
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
