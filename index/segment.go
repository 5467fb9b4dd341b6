package index

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Scripts written without spaces between words (Chinese, Japanese, Thai,
// Lao, Khmer, Myanmar) and Korean, whose words carry their particles
// (끝말잇기를), are one unicode61 token per run: a word inside a run could
// not be found. The index therefore stores a token form of each chunk in
// which every such run is its overlapping bigrams followed by its last
// character ("标准计划中" → "标准 准计 计划 划中 中"), as Lucene's cjk
// analyzer does, and a query is turned into the same bigrams. Text with no
// such run is indexed as it is, so English ranks exactly as before. See
// docs/decisions-cjk.md.

// segClass is the kind of run a character belongs to; bigrams never cross
// from one kind to another.
type segClass uint8

const (
	segNone segClass = iota
	segCJ            // Han, Hiragana, Katakana: one run, as in Lucene's cjk bigrams
	segHangul
	segThai
	segLao
	segKhmer
	segMyanmar
)

// ftsFormFunc is the SQL function the index writes and deletes FTS rows
// with (sql.go): the token form of a column.
const ftsFormFunc = "fts_form"

// classOf returns the run kind of r; segNone for every letter of the
// scripts that use spaces, and for punctuation.
func classOf(r rune) segClass {
	if r < 0x0E00 { // every script below Thai uses spaces
		return segNone
	}
	// The commonest blocks first, without table look-ups: building an
	// index runs this for every character of every CJK note.
	switch {
	case r >= 0x4E00 && r <= 0x9FFF: // CJK Unified Ideographs: all letters
		return segCJ
	case r >= 0xAC00 && r <= 0xD7A3: // Hangul syllables
		return segHangul
	case r >= 0x3041 && r <= 0x3096, r >= 0x30A1 && r <= 0x30FA, r >= 0x30FC && r <= 0x30FF: // kana letters, ー
		return segCJ
	}
	switch {
	case r <= 0x0EFF:
		if r <= 0x0E7F {
			return tokenClass(r, segThai)
		}
		return tokenClass(r, segLao)
	case r >= 0x1000 && r <= 0x109F:
		return tokenClass(r, segMyanmar)
	case r >= 0x1780 && r <= 0x17FF:
		return tokenClass(r, segKhmer)
	case r < 0x1100:
		return segNone
	case unicode.Is(unicode.Hangul, r):
		return tokenClass(r, segHangul)
	case unicode.Is(unicode.Han, r), unicode.Is(unicode.Hiragana, r), unicode.Is(unicode.Katakana, r),
		r == 'ー', r == 'ｰ', r == '゛', r == '゜', r == 'ﾞ', r == 'ﾟ': // kana marks of the Common script
		return tokenClass(r, segCJ)
	}
	return segNone
}

// tokenClass is c when r is part of a word (not punctuation such as 、 or ฯ).
func tokenClass(r rune, c segClass) segClass {
	if isTokenRune(r) || r == 'ー' || r == 'ｰ' {
		return c
	}
	return segNone
}

// hasSegmented reports whether s holds a character of a run kind. Every
// such character is at least U+0E00, three bytes in UTF-8 with a lead byte
// of 0xE0 or more: ASCII and Latin text is passed over a byte at a time.
func hasSegmented(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0xE0 {
			continue
		}
		r, _ := utf8.DecodeRuneInString(s[i:])
		if classOf(r) != segNone {
			return true
		}
	}
	return false
}

// tokenForm is what the FTS table indexes for s: s itself when it holds no
// run to split, else s with each run replaced by its bigrams and its last
// character, set apart by spaces (so Latin letters glued to a run, as in
// "gen-itgc后", are words of their own).
func tokenForm(s string) string {
	if !hasSegmented(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) * 3)
	var run []rune
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		c := classOf(r)
		if c == segNone {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		run = run[:0]
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if classOf(r) != c {
				break
			}
			run = append(run, r)
			i += n
		}
		b.WriteByte(' ')
		for k := 0; k+1 < len(run); k++ {
			b.WriteRune(run[k])
			b.WriteRune(run[k+1])
			b.WriteByte(' ')
		}
		b.WriteRune(run[len(run)-1])
		b.WriteByte(' ')
	}
	return b.String()
}

// splitWord turns one query word (a run of token characters) into the terms
// searched for: its parts outside any run as they are, each run of two or
// more characters as its bigrams, a one-character run as a prefix term
// ("中*"), which matches every bigram starting with it and so every place
// the character is written.
func splitWord(w string) []string {
	if !hasSegmented(w) {
		return []string{w}
	}
	var out []string
	var run []rune
	for i := 0; i < len(w); {
		r, n := utf8.DecodeRuneInString(w[i:])
		c := classOf(r)
		j := i + n
		if c == segNone {
			for j < len(w) {
				r, n := utf8.DecodeRuneInString(w[j:])
				if classOf(r) != segNone {
					break
				}
				j += n
			}
			out = append(out, w[i:j])
			i = j
			continue
		}
		run = append(run[:0], r)
		for j < len(w) {
			r, n := utf8.DecodeRuneInString(w[j:])
			if classOf(r) != c {
				break
			}
			run = append(run, r)
			j += n
		}
		if len(run) == 1 {
			out = append(out, string(run)+"*")
		}
		for k := 0; k+1 < len(run); k++ {
			out = append(out, string(run[k:k+2]))
		}
		i = j
	}
	return out
}

// rawForm rewrites the runs in an expert's FTS5 query as the index holds
// them: a run of two or more characters becomes its bigrams, which FTS5
// reads as an AND of them outside quotes and as a phrase inside. A single
// character is left as it is (it then matches only where it stands alone or
// ends a run: a raw query is taken as written).
func rawForm(q string) string {
	if !hasSegmented(q) {
		return q
	}
	var b strings.Builder
	var run []rune
	for i := 0; i < len(q); {
		r, n := utf8.DecodeRuneInString(q[i:])
		c := classOf(r)
		if c == segNone {
			b.WriteString(q[i : i+n])
			i += n
			continue
		}
		run = run[:0]
		for i < len(q) {
			r, n := utf8.DecodeRuneInString(q[i:])
			if classOf(r) != c {
				break
			}
			run = append(run, r)
			i += n
		}
		if len(run) == 1 {
			b.WriteRune(run[0])
			continue
		}
		b.WriteByte(' ')
		for k := 0; k+1 < len(run); k++ {
			if k > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(run[k])
			b.WriteRune(run[k+1])
		}
		b.WriteByte(' ')
	}
	return b.String()
}
