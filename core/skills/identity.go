package skills

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"agent/memory/printable"
)

// IdentityBudget is the tokens the skills may take in the identity section:
// with ten integrations and the tools line, the capabilities stay under
// ~400 tokens.
const IdentityBudget = 200

// ShortBudget is the skills' share when the whole identity section runs
// over its budget: names only, for ten skills.
const ShortBudget = 70

// identityHeader introduces the list; the model loads a skill before use.
const identityHeader = "Skills (call skill_read(name) for the instructions before using one):"

// shortestDescription is the fewest characters of a description worth
// showing; below it the list falls back to names only.
const shortestDescription = 24

// IdentityLines lists skills for the identity section, each as
// "name: description" on one line after a header line, within budget
// tokens as counted by tokens (applied to each line as rendered, "- "
// and newline included). Over budget it shortens every description
// alike; if even the shortest do not fit, it lists names only, and as many
// as fit, ending "and N more (skill_read() lists them)". cut says what was
// shortened, "" when nothing was. The result depends only on the skills
// (sorted by name, as Discover returns them), never on the time.
func IdentityLines(skills []Skill, budget int, tokens func(string) int) (lines []string, cut string) {
	if len(skills) == 0 {
		return nil, ""
	}
	cost := func(ls []string) int {
		n := 0
		for _, l := range ls {
			n += tokens("- " + l + "\n")
		}
		return n
	}
	withDescriptions := func(width int) []string {
		out := []string{identityHeader}
		for _, s := range skills {
			out = append(out, s.Name+": "+clip(printable.OneLine(s.Description), width))
		}
		return out
	}
	full := withDescriptions(MaxDescriptionLen)
	if cost(full) <= budget {
		return full, ""
	}
	// The widest cut that fits, found by halving the range.
	lo, hi := shortestDescription, MaxDescriptionLen
	if cost(withDescriptions(lo)) <= budget {
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if cost(withDescriptions(mid)) <= budget {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		return withDescriptions(lo), fmt.Sprintf("skills: descriptions cut to %d characters to fit %d tokens", lo, budget)
	}
	// Names only, as many as fit.
	names := make([]string, len(skills))
	for i, s := range skills {
		names[i] = s.Name
	}
	for k := len(names); k >= 0; k-- {
		l := "Skills (call skill_read(name) for the instructions): " + strings.Join(names[:k], ", ")
		if k < len(names) {
			if k > 0 {
				l += ", "
			}
			l += fmt.Sprintf("and %d more (skill_read() lists them)", len(names)-k)
		}
		if cost([]string{l}) <= budget || k == 0 {
			return []string{l}, fmt.Sprintf("skills: %d of %d named, without descriptions, to fit %d tokens", k, len(names), budget)
		}
	}
	return nil, "" // unreachable: k == 0 always returns
}

// clip cuts s to at most width characters, at a word when it can, marking
// the cut with an ellipsis.
func clip(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)[:width-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:") + "…"
}
