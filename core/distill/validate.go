package distill

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"agent/memory/printable"
)

// Citation is a checked source: lines Start..End (1-based, inclusive) of a
// log of the period.
type Citation struct {
	Path       string
	Start, End int
}

func (c Citation) String() string {
	if c.Start == c.End {
		return fmt.Sprintf("%s:%d", c.Path, c.Start)
	}
	return fmt.Sprintf("%s:%d-%d", c.Path, c.Start, c.End)
}

// Reasons an item or fact is dropped; the counts are reported per reason.
const (
	DropNoSource    = "unknown source"      // not path:lines, or not a log of this period
	DropOutOfRange  = "lines out of range"  // past the end of the file, or reversed
	DropQuote       = "quote not in source" // the cited lines do not hold the quoted passage
	DropEmpty       = "empty or too long"   // no text, or longer than an item may be
	DropNotJSON     = "reply not JSON"      // a whole reply that was not the JSON asked for
	DropRemoval     = "would remove a fact" // an action other than add/supersede
	DropNoReplaced  = "replaced line not in MEMORY.md"
	DropDuplicate   = "already in MEMORY.md"
	DropRejected    = "rejected before"
	maxItemRunes    = 300
	maxCitedLines   = 60
	minQuoteRunes   = 12
	maxSectionRunes = 80
)

var citationRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(logs/\d{4}-\d{2}-\d{2}\.md):(\d+)(?:-(\d+))?\s*$`)
})

// Checker validates citations against the sources they may cite: the logs
// of a period for a digest, the logged turns a session compaction covers.
type Checker struct {
	byPath map[string]Source
}

// NewChecker checks citations of srcs: a line left blank in a source (one
// outside what may be cited) holds nothing a quote can match.
func NewChecker(srcs []Source) Checker {
	c := Checker{byPath: map[string]Source{}}
	for _, s := range srcs {
		c.byPath[s.Path] = s
	}
	return c
}

// Cite checks that source names lines of a log of the period and that
// those lines hold quote (compared ignoring case, punctuation runs and
// spacing). It returns the citation or the reason it fails.
func (c Checker) Cite(source, quote string) (Citation, string) {
	m := citationRE().FindStringSubmatch(source)
	if m == nil {
		return Citation{}, DropNoSource
	}
	src, ok := c.byPath[m[1]]
	if !ok {
		return Citation{}, DropNoSource
	}
	start, err1 := strconv.Atoi(m[2])
	end := start
	var err2 error
	if m[3] != "" {
		end, err2 = strconv.Atoi(m[3])
	}
	if err1 != nil || err2 != nil || start < 1 || end < start || end > len(src.Lines) || end-start >= maxCitedLines {
		return Citation{}, DropOutOfRange
	}
	cited := normalise(strings.Join(src.Lines[start-1:end], " "))
	q := normalise(quote)
	need := min(minQuoteRunes, utf8.RuneCountInString(cited))
	if need == 0 || utf8.RuneCountInString(q) < need || !strings.Contains(cited, q) {
		return Citation{}, DropQuote
	}
	return Citation{Path: m[1], Start: start, End: end}, ""
}

// Items checks a reply of Schema(Week)'s shape: the items whose text fits
// one line and whose citation holds are kept, the rest counted in counts by
// reason (a reply that is not that JSON counts once, as DropNotJSON).
func (c Checker) Items(content string, counts *Counts) []Item {
	r, err := parseReply(content)
	if err != nil {
		counts.drop(DropNotJSON)
		return nil
	}
	return c.items(r.Items, counts)
}

func (c Checker) items(in []replyItem, counts *Counts) []Item {
	var out []Item
	for _, it := range in {
		t := oneLine(it.Text, maxItemRunes)
		if t == "" {
			counts.drop(DropEmpty)
			continue
		}
		cite, why := c.Cite(it.Source, it.Quote)
		if why != "" {
			counts.drop(why)
			continue
		}
		counts.Kept++
		out = append(out, Item{Text: t, Source: cite, Cite: cite.String()})
	}
	return out
}

// normalise lowers case and folds every run of non-letters and non-digits
// into one space, so a quote matches despite markdown and punctuation.
func normalise(s string) string {
	var b strings.Builder
	space := true
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	return strings.TrimSpace(b.String())
}

// oneLine folds text onto one trimmed line for a markdown bullet: line
// breaks and control characters become spaces, and a leading "#" or list
// marker cannot turn the bullet into something else. "" when nothing is left
// or it is longer than max runes. ZWNJ and ZWJ stay: they are part of a
// word (Persian, Indic scripts) or an emoji (👨‍👩‍👧), not hidden text.
func oneLine(s string, max int) string {
	s = printable.OneLine(strings.Map(func(r rune) rune {
		if unicode.In(r, unicode.Cc, unicode.Cf) && r != '\u200c' && r != '\u200d' {
			return ' '
		}
		return r
	}, s))
	// A heading, quote or list marker in front would make the bullet
	// something else; "**bold**" stays.
	for {
		t := strings.TrimLeft(s, "#> ")
		for _, m := range []string{"- ", "* ", "+ "} {
			t = strings.TrimPrefix(t, m)
		}
		if t == s {
			break
		}
		s = t
	}
	if utf8.RuneCountInString(s) > max {
		return ""
	}
	return s
}

// Counts says what happened to what the model returned.
type Counts struct {
	Kept    int            `json:"kept"`
	Dropped map[string]int `json:"dropped"`
}

func (c *Counts) drop(reason string) {
	if c.Dropped == nil {
		c.Dropped = map[string]int{}
	}
	c.Dropped[reason]++
}

// DroppedTotal is how many were dropped for any reason.
func (c Counts) DroppedTotal() int {
	n := 0
	for _, v := range c.Dropped {
		n += v
	}
	return n
}

// mostlyInvalid is the rule that stops a run from writing: more dropped
// than kept, counting only what the model got wrong (a duplicate or a
// rejected fact is not the model's error).
func (c Counts) mostlyInvalid() bool {
	bad := c.DroppedTotal() - c.Dropped[DropDuplicate] - c.Dropped[DropRejected]
	return bad > c.Kept
}
