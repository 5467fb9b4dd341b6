package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v3"

	"agent/core"
	"agent/memory/printable"
)

func (a *app) doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check the workspace, the index, Ollama and the model",
		Description: "Each check prints a line: ok or fail, its name, what was found, and on\n" +
			"failure how to fix it. Exit status: 0 all ok, 4 only Ollama or the model\n" +
			"failed, 1 anything else failed.",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usagef("doctor takes no arguments")
			}
			return a.runDoctor(ctx)
		},
	}
}

func (a *app) runDoctor(ctx context.Context) error {
	home, err := core.ResolveHome(a.homeFlag)
	if err != nil {
		return err
	}
	rep := core.Doctor(ctx, home, a.model, nil)
	for i, c := range rep.Checks {
		rep.Checks[i].Fix = a.withHome(c.Fix)
	}
	if e, err := a.embedder(); err != nil {
		return err
	} else if e != nil {
		rep.Add(core.DoctorEmbeddings(ctx, home, e))
	}
	if err := a.printDoctor(rep); err != nil {
		return err
	}
	a.noteOverdue(ctx) // a note, not a failed check: the digests are optional
	return rep.Err()
}

// printDoctor renders the report: JSON, aligned lines on a terminal, or
// one tab-separated record per check (status, name, detail, fix) in a pipe.
func (a *app) printDoctor(rep core.DoctorReport) error {
	if a.jsonOut {
		return a.writeJSON(rep)
	}
	if !a.io.OutTTY {
		for _, c := range rep.Checks {
			if err := writeTSV(a.io.Out, doctorStatus(c.OK), c.Name, c.Detail, c.Fix); err != nil {
				return err
			}
		}
		return nil
	}
	width := 0
	for _, c := range rep.Checks {
		width = max(width, len(c.Name))
	}
	for _, c := range rep.Checks {
		mark := a.ansi("32", "ok  ")
		if !c.OK {
			mark = a.ansi("31", "fail")
		}
		// Details and fixes are wrapped at spaces under their own column.
		pad := strings.Repeat(" ", 4+2+width+2)
		for i, l := range wrapWords(c.Detail, a.io.cols()-len(pad)) {
			if i == 0 {
				fmt.Fprintf(a.io.Out, "%s  %-*s  %s\n", mark, width, c.Name, l)
			} else {
				fmt.Fprintf(a.io.Out, "%s%s\n", pad, l)
			}
		}
		if !c.OK && c.Fix != "" {
			for _, l := range wrapWords("fix: "+c.Fix, a.io.cols()-len(pad)) {
				fmt.Fprintf(a.io.Out, "%s%s\n", pad, l)
			}
		}
	}
	return nil
}

// withHome puts the --home the user gave into a fix that runs agent, so
// that "agent init" creates the workspace doctor looked at, not the
// default one. A home AGENT_HOME names needs no flag: the fix runs under
// the same environment.
func (a *app) withHome(fix string) string {
	rest, ok := strings.CutPrefix(fix, "agent ")
	if !ok || a.homeFlag == "" || a.homeFlag == os.Getenv("AGENT_HOME") {
		return fix
	}
	return "agent --home " + printable.Word(a.homeFlag) + " " + rest
}

func doctorStatus(ok bool) string {
	if ok {
		return "ok"
	}
	return "fail"
}
