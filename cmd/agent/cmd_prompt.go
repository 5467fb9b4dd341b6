package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"agent/core"
	"agent/memory/printable"
)

func (a *app) promptCommand() *cli.Command {
	return &cli.Command{
		Name:      "prompt",
		Usage:     "show exactly what chat would send for MESSAGE, layer by layer (no model call)",
		ArgsUsage: "[MESSAGE]",
		Flags:     sessionFlags(),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			message, _, err := a.messageInput(cmd)
			if err != nil {
				return err
			}
			s, err := a.openChat(ctx, cmd, message)
			if err != nil {
				return err
			}
			defer s.close()
			// num_ctx as chat would resolve it: capped at the model's own
			// context length when Ollama can say (it is asked briefly; a
			// prompt must not wait long for a server that is not there).
			s.ollama.StallTimeout = promptAskTimeout
			if info, err := s.ollama.Show(ctx, s.chat.ModelName); err == nil {
				a.useModelInfo(s, info)
			} else {
				a.infof("num_ctx %d as given: could not ask Ollama for the model's context length (%v)", s.chat.NumCtx, err)
			}
			asm, err := s.chat.Assemble(ctx, &s.session, message)
			if err != nil {
				return err
			}
			for _, cut := range asm.Cuts {
				a.warnf("context cut to fit num_ctx %d: %s", asm.NumCtx, cut)
			}
			if a.jsonOut {
				return a.writeJSON(asm)
			}
			a.printAssembled(asm, true)
			return nil
		},
	}
}

// promptAskTimeout bounds prompt's question to Ollama about the model.
const promptAskTimeout = 3 * time.Second

// shown is stored text as a terminal may show it: a stored reply or note
// that holds an escape sequence is shown escaped, never acted on. Piped, the
// prompt is data, byte for byte what the model is sent.
func (a *app) shown(s string) string {
	if a.io.OutTTY {
		return printable.Escape(s)
	}
	return s
}

// printAssembled shows each message under a header naming its layer, source
// and size, then the totals — the same messages chat sends, in order. With
// the exchange placement the memory layer is the top of the user's message,
// so it is shown there, under the message's header. Without bodies only the
// headers and totals are printed: how full the context is and what was cut
// (the REPL's /context).
func (a *app) printAssembled(asm *core.Assembled, bodies bool) {
	out := a.io.Out
	mi := 0
	for _, l := range asm.Layers {
		header := fmt.Sprintf("── %s · %s · ~%d tokens", l.Name, l.Source, l.Tokens)
		if l.Folded > 0 {
			header += fmt.Sprintf(" · %d older messages replayed without their recalled passages", l.Folded)
		}
		if l.Truncated != "" {
			header += " · " + l.Truncated
		}
		fmt.Fprintln(out, a.ansi("1;36", a.shown(header)))
		if !bodies {
			continue
		}
		n := 1
		switch {
		case l.Name == core.LayerHistory:
			n = l.Items
		case l.Name == core.LayerMemory && asm.Placement == core.PlacementExchange:
			n = 0
			fmt.Fprintln(out, "(at the top of the user's message, below)")
		}
		for i := 0; i < n && mi < len(asm.Messages); i++ {
			m := asm.Messages[mi]
			mi++
			if l.Name == core.LayerHistory {
				fmt.Fprintf(out, "[%s]\n", m.Role)
			}
			fmt.Fprintln(out, a.shown(strings.TrimRight(m.Content, "\n")))
		}
		fmt.Fprintln(out)
	}
	if !bodies {
		fmt.Fprintln(out)
	}
	cuts := "none"
	if len(asm.Cuts) > 0 {
		cuts = strings.Join(asm.Cuts, "; ")
	}
	total := fmt.Sprintf("── total ~%d of %d tokens (%d kept for the reply) · mode %s · recall placement %s · prefix shared with the last request %d of %d bytes · prompt sha256:%s · cuts: %s",
		asm.Total, asm.NumCtx, asm.Reserve, asm.Mode, asm.Placement, asm.PrefixReuse, asm.RequestBytes, asm.PromptHash, cuts)
	// On a terminal, wrapped at spaces (the 71-column hash on a line of its own if need be).
	for _, l := range wrapWords(total, a.io.cols()) {
		fmt.Fprintln(out, a.ansi("1", l))
	}
}
