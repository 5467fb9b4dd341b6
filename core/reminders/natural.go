package reminders

import (
	"sort"
	"time"

	"github.com/olebedev/when/rules"
	"github.com/olebedev/when/rules/common"
	"github.com/olebedev/when/rules/en"
)

// natural reads an English time phrase with olebedev/when's English and
// common rules, as its Parser does, but without importing its root package:
// that package builds parsers for four languages when the program starts
// (Russian, Brazilian Portuguese and Dutch too), compiling some hundred
// regular expressions that every agent process paid for — ~6 ms of each
// `agent memory search` or one-shot chat on a slow machine, most of the gap
// to the bench's stack floor (docs/decisions.md). The algorithm is when's:
// every rule's first match, the cluster of matches that starts with the
// leftmost one and continues while the next begins within Distance of the
// last one's end, applied in the rules' order. TestNaturalMatchesWhen checks
// it against when.Parser phrase by phrase.
type natural struct {
	rules []rules.Rule
	opts  rules.Options
}

// naturalResult is what was understood: the time, and where in the text
// the phrase that gave it stands.
type naturalResult struct {
	Index int    // byte offset of the phrase in the text
	Text  string // the phrase
	Time  time.Time
}

// naturalParser reads English phrases ("tomorrow 9:00", "fri 18:00",
// "in 2 hours"); it is built once, its rules are read-only.
var naturalParser = &natural{
	rules: append(append([]rules.Rule{}, en.All...), common.All...),
	opts:  rules.Options{Distance: 5, MatchByOrder: true},
}

// Parse returns nil, nil when no rule matches or none applies.
func (p *natural) Parse(text string, base time.Time) (*naturalResult, error) {
	var matches []*rules.Match
	for _, r := range p.rules {
		if m := r.Find(text); m != nil {
			m.Order = float64(len(matches))
			matches = append(matches, m)
		}
	}
	if len(matches) == 0 {
		return nil, nil
	}
	sort.Sort(rules.MatchByIndex(matches))
	start, end := matches[0].Left, matches[0].Right
	for i, m := range matches {
		if m.Left > end+p.opts.Distance {
			matches = matches[:i]
			break
		}
		end = m.Right
	}
	res := &naturalResult{Index: start, Text: text[start:end]}
	if p.opts.MatchByOrder {
		sort.Sort(rules.MatchByOrder(matches))
	}
	ctx := &rules.Context{Text: res.Text}
	applied := false
	for _, m := range matches {
		ok, err := m.Apply(ctx, &p.opts, base)
		if err != nil {
			return nil, err
		}
		applied = applied || ok
	}
	if !applied {
		return nil, nil
	}
	t, err := ctx.Time(base)
	if err != nil {
		return nil, err
	}
	res.Time = t
	return res, nil
}
