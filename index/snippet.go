package index

import (
	"strings"
	"unicode/utf8"
)

// snippetUnits is how much text segSnippet shows: a CJK character counts
// one, any other word two, so an English window is FTS5's 16 words and a
// Chinese one 32 characters — about the same width on a terminal.
const snippetUnits = 32

// snippetLead is how much context (in units) is shown before the first
// marked term of the window.
const snippetLead = 6

// segSnippet is the snippet of a chunk whose indexed form is not its text
// (it holds a CJK or Thai run): FTS5's snippet() would mark positions of
// the bigram form in the original text. It marks in the text the words of
// terms (as queryTerms gives them: words, CJK bigrams and characters) and
// shows the window holding the most marked words, cut at whole characters.
func segSnippet(text string, terms []string) string {
	toks := snippetTokens(text)
	if len(toks) == 0 {
		return ""
	}
	words := map[string]bool{}
	pairs := map[[2]rune]bool{}
	singles := map[rune]bool{}
	for _, t := range terms {
		switch rs := []rune(t); {
		case len(rs) == 1 && classOf(rs[0]) != segNone:
			singles[rs[0]] = true
		case len(rs) == 2 && classOf(rs[0]) != segNone:
			pairs[[2]rune{rs[0], rs[1]}] = true
		default:
			words[t] = true
		}
	}
	marked := make([]bool, len(toks))
	any := false
	for i, t := range toks {
		switch {
		case t.r != 0:
			if singles[t.r] {
				marked[i] = true
			}
			if i+1 < len(toks) && toks[i+1].r != 0 && toks[i+1].s == t.e && pairs[[2]rune{t.r, toks[i+1].r}] {
				marked[i], marked[i+1] = true, true
			}
		default:
			w := strings.ToLower(text[t.s:t.e])
			for q := range words {
				// FTS5 stems (porter): a word that starts with a
				// term of four letters or more is taken as its form.
				if w == q || len(q) >= 4 && strings.HasPrefix(w, q) {
					marked[i] = true
					break
				}
			}
		}
		any = any || marked[i]
	}
	// The window: from a little before a marked word, as far as the units
	// go; the one with the most marked words, the earliest among equals.
	best, bestFrom, bestTo := -1, 0, 0
	for i := range toks {
		if any && !marked[i] || i > 0 && marked[i-1] {
			continue
		}
		from := i
		for lead := 0; from > 0 && lead+toks[from-1].units() <= snippetLead; from-- {
			lead += toks[from-1].units()
		}
		to, units, n := from, 0, 0
		for to < len(toks) && units+toks[to].units() <= snippetUnits {
			units += toks[to].units()
			if marked[to] {
				n++
			}
			to++
		}
		if n > best {
			best, bestFrom, bestTo = n, from, to
		}
		if !any {
			break
		}
	}
	var b strings.Builder
	if bestFrom > 0 {
		b.WriteString("…")
	}
	open := false
	pos := toks[bestFrom].s
	for i := bestFrom; i < bestTo; i++ {
		t := toks[i]
		gap := text[pos:t.s]
		if open && (gap != "" || !marked[i]) {
			b.WriteString(MarkEnd)
			open = false
		}
		b.WriteString(gap)
		if marked[i] && !open {
			b.WriteString(MarkStart)
			open = true
		}
		b.WriteString(text[t.s:t.e])
		pos = t.e
	}
	if open {
		b.WriteString(MarkEnd)
	}
	if bestTo < len(toks) {
		b.WriteString("…")
	}
	return b.String()
}

// snippetToken is a word of a chunk's text, by byte offsets: a run of token
// characters, or one character of a CJK or Thai run (r, else 0).
type snippetToken struct {
	s, e int
	r    rune
}

func (t snippetToken) units() int {
	if t.r != 0 {
		return 1
	}
	return 2
}

// snippetTokens splits text into words as the index sees them, each
// character of a run on its own.
func snippetTokens(text string) []snippetToken {
	var toks []snippetToken
	start := -1 // start of the word being read, outside runs
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		seg := classOf(r) != segNone
		if start >= 0 && (seg || !isTokenRune(r)) {
			toks = append(toks, snippetToken{s: start, e: i})
			start = -1
		}
		switch {
		case seg:
			toks = append(toks, snippetToken{s: i, e: i + n, r: r})
		case start < 0 && isTokenRune(r):
			start = i
		}
		i += n
	}
	if start >= 0 {
		toks = append(toks, snippetToken{s: start, e: len(text)})
	}
	return toks
}
