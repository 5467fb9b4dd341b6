package core

import (
	"agent/core/window"
	"agent/prompts"
)

// Names core's tests use for what core/window now holds.

const (
	recallHeader     = window.RecallHeader
	maxCharsPerToken = window.MaxCharsPerToken
)

type assemblyInput = window.Input

func assemble(in assemblyInput) (*Assembled, error) { return window.Assemble(in) }

func transcriptChars(m StoredMessage) int64 { return window.TranscriptChars(m) }

func carried(m StoredMessage) bool { return window.Carried(m) }

func sharedPrefix(a, b string) int { return window.SharedPrefix(a, b) }

func withContext(context, words string) string { return window.WithContext(context, words) }

// baseInput is a turn's input with the fixed layers set, as window's own
// tests build it.
func baseInput() assemblyInput {
	return assemblyInput{
		Prompt:   prompts.System(),
		Identity: "## Now\n\n- test runtime\n", Note: "[sent Sun 22 Nov 2026 09:30]",
		Soul: "# Soul\n\nI am calm.\n", SoulSource: "SOUL.md revision 1",
		Profile: "# Profile\n\n- agent.name: Atlas\n", ProfileSource: "state.db: 1 profile records",
		SessionName: "s1", Message: "what did I plan for the trip?",
		NumCtx: 8192, Reserve: 1024, CharsPerToken: 4, IdentityBudget: 400,
	}
}
