package core

import (
	"fmt"

	"agent/core/window"
	"agent/memory/printable"
)

// A turn's context is fitted by core/window; these names are core's.
type (
	Layer        = window.Layer
	Assembled    = window.Assembled
	ToolsSize    = window.ToolsSize
	IdentitySize = window.IdentitySize
	Recalled     = window.Recalled
	RecallRef    = window.RecallRef
)

// Layer names, in the order they are sent.
const (
	LayerSystem  = window.LayerSystem
	LayerSoul    = window.LayerSoul
	LayerProfile = window.LayerProfile
	LayerSummary = window.LayerSummary
	LayerMemory  = window.LayerMemory
	LayerHistory = window.LayerHistory
	LayerMessage = window.LayerMessage
)

// Recall placements (window.PlacementExchange, window.PlacementLayer).
const (
	PlacementExchange = window.PlacementExchange
	PlacementLayer    = window.PlacementLayer
)

// ValidPlacement checks a --recall-placement value.
func ValidPlacement(p string) error {
	if p != PlacementExchange && p != PlacementLayer {
		return fmt.Errorf("%w: recall placement %q: want %s or %s", ErrInvalidInput, p, PlacementExchange, PlacementLayer)
	}
	return nil
}

// neutralise, attrValue and recallBlock are window's fence, which every
// quoted text core shows the model goes through.
func neutralise(s string) string    { return window.Neutralise(s) }
func attrValue(s string) string     { return window.AttrValue(s) }
func recallBlock(r Recalled) string { return window.RecallBlock(r) }

// oneLine flattens s to a single line of at most n runes, for facts quoted
// inside the system prompt and notes to the user; control characters are
// escaped, since `agent prompt` and the notes reach the terminal.
func oneLine(s string, n int) string {
	return printable.Cut(printable.Escape(neutralise(printable.OneLine(s))), n)
}
