package index

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Scripts written without spaces between words (Chinese, Japanese, Thai,
// Lao, Khmer, Myanmar) and Korean, whose words carry their particles
// (끝말잇기를), are one unicode61 token per run: a word inside a run could
// not be found. The index therefore indexes a token form of each chunk in
// which every character of such a run is a token ("标准计划中" → "标 准 计 划
// 中"), and a query searches a run by its overlapping bigrams, each the
// phrase of two characters ("标准计划" → "标 准" OR "准 计" OR "计 划"): the
// matching and bm25 of Lucene's cjk bigram analyzer, at a quarter less
// index build time than indexing the bigrams themselves. Text with no such
// run is indexed as it is, so English ranks exactly as before. See
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

// ftsFormFunc is the SQL function the index deletes FTS rows with (sql.go:
// FTS5 must be handed the values it indexed): the token form of a column.
// The writer makes the forms it inserts itself (writer.go).
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
	case r >= 0x0E01 && r <= 0x0E2E, r >= 0x0E30 && r <= 0x0E3A, r >= 0x0E40 && r <= 0x0E4E: // Thai letters and marks
		return segThai
	case r >= 0x3000 && r <= 0x3004, r >= 0x3008 && r <= 0x3020, r >= 0xFF00 && r <= 0xFF65:
		// CJK punctuation (、。「」【】〜) and full-width forms (，！？（）):
		// none is a letter of a run, and every line of CJK text has some
		return segNone
	}
	return classByTable(r)
}

// classByTable is classOf for a character at least U+0E00, by the Unicode
// tables: what classOf's blocks above stand in for (TestClassOfBlocks).
func classByTable(r rune) segClass {
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
// of 0xE0 or more: ASCII is passed over eight bytes at a time (no byte with
// its high bit set), other Latin text a byte at a time. Every note of an
// English workspace goes through here, and the byte loop was 2% of its
// build.
func hasSegmented(s string) bool {
	for i := 0; i < len(s); i++ {
		for i+8 <= len(s) && ascii8(s[i:i+8]) {
			i += 8
		}
		if i >= len(s) || s[i] < 0xE0 {
			continue
		}
		if r, _ := decodeRune(s, i); classOf(r) != segNone {
			return true
		}
	}
	return false
}

// ascii8 says whether the eight bytes of b are all ASCII; the compiler
// makes of the shifts one load.
func ascii8(b string) bool {
	_ = b[7]
	w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
	return w&0x8080808080808080 == 0
}

// decodeRune is utf8.DecodeRuneInString(s[i:]) with a well-formed
// three-byte character, every character of a run but a few, decoded in
// line: the decoder's call for it was a tenth of tokenForm's time.
func decodeRune(s string, i int) (rune, int) {
	if i+2 < len(s) {
		c0, c1, c2 := s[i], s[i+1], s[i+2]
		if c0&0xF0 == 0xE0 && c1&0xC0 == 0x80 && c2&0xC0 == 0x80 &&
			(c0 != 0xE0 || c1 >= 0xA0) && (c0 != 0xED || c1 < 0xA0) { // not overlong, not a surrogate
			return rune(c0&0x0F)<<12 | rune(c1&0x3F)<<6 | rune(c2&0x3F), 3
		}
	}
	return utf8.DecodeRuneInString(s[i:])
}

// tokenForm is what the FTS table indexes for s: s itself when it holds no
// run to split, else s with each character of a run set apart by spaces
// (so Latin letters glued to a run, as in "gen-itgc后", are words of their
// own). A query searches a run by the phrases of its bigrams (orQuery).
func tokenForm(s string) string {
	if !hasSegmented(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) * 2)
	inRun := false // the character before i is part of a run
	done := 0      // s[:done] is written
	for i := 0; i < len(s); {
		if s[i] < 0xE0 { // not a run's character (hasSegmented): the common case, a byte at a time
			if inRun {
				b.WriteString(s[done:i])
				b.WriteByte(' ')
				done, inRun = i, false
			}
			i++
			continue
		}
		r, n := decodeRune(s, i)
		seg := classOf(r) != segNone
		if seg || inRun {
			b.WriteString(s[done:i])
			b.WriteByte(' ')
			done = i
		}
		inRun = seg
		i += n
	}
	b.WriteString(s[done:])
	if inRun {
		b.WriteByte(' ')
	}
	return b.String()
}

// spaced is a run's characters set apart by spaces, as tokenForm indexes
// them: inside an FTS5 string, the phrase of those characters.
func spaced(run string) string {
	var b strings.Builder
	for i, r := range run {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// splitWord turns one query word (a run of token characters) into the terms
// searched for: its parts outside any run as they are, each run of two or
// more characters as its overlapping bigrams (each searched as a phrase of
// two characters, so a word is found inside a longer run), a one-character
// run as that character. function[i] marks a term of a Japanese particle
// or ending (kanaFunction), dropped as a stopword is.
func splitWord(w string) (terms []string, function []bool) {
	if !hasSegmented(w) {
		return []string{w}, []bool{false}
	}
	add := func(t string, f bool) {
		terms = append(terms, t)
		function = append(function, f)
	}
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
			add(w[i:j], false)
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
		parts := [][]rune{run}
		if c == segCJ {
			parts = cjParts(run)
		}
		for pi, part := range parts {
			if len(part) == 1 {
				add(string(part), isHiragana(part[0]))
			}
			for k := 0; k+1 < len(part); k++ {
				add(string(part[k:k+2]), kanaFunction(part, pi == 0, k))
			}
		}
		i = j
	}
	return terms, function
}

// kanaFunction reports whether the bigram at k of a part of a Japanese
// run is a particle or an ending rather than part of a word: two
// hiragana (を, から, する, ます, ている), unless the part is hiragana alone,
// three characters or more, at the start of the run — a word written in
// hiragana (しりとり, おにぎり), not an ending to what came before.
func kanaFunction(part []rune, first bool, k int) bool {
	if !isHiragana(part[k]) || !isHiragana(part[k+1]) {
		return false
	}
	if !first || len(part) < 3 {
		return true
	}
	for _, r := range part {
		if !isHiragana(r) {
			return true
		}
	}
	return false
}

// rawForm rewrites the runs in an expert's FTS5 query as the index holds
// them: a run becomes the phrase of its characters — quoted when it stood
// outside a string, spaced when inside one — so it matches where the run
// is written, as a word would.
func rawForm(q string) string {
	if !hasSegmented(q) {
		return q
	}
	var b strings.Builder
	inString := false
	for i := 0; i < len(q); {
		r, n := utf8.DecodeRuneInString(q[i:])
		c := classOf(r)
		if c == segNone {
			if r == '"' { // "" inside a string toggles twice: still inside
				inString = !inString
			}
			b.WriteString(q[i : i+n])
			i += n
			continue
		}
		j := i
		for j < len(q) {
			r, n := utf8.DecodeRuneInString(q[j:])
			if classOf(r) != c {
				break
			}
			j += n
		}
		if inString {
			b.WriteString(" " + spaced(q[i:j]) + " ")
		} else {
			b.WriteString(` "` + spaced(q[i:j]) + `" `)
		}
		i = j
	}
	return b.String()
}

// cjParts cuts a Chinese or Japanese run of a query where a word surely
// ends, so no bigram joins the end of one word to the start of the next
// (属性有哪些类型: 性有, 些类; Evernoteからノートを: らノ, トを), bigrams that
// match other words' meetings in unrelated notes and, in a long question,
// outnumber the words asked about. Cut out are the Chinese question and
// function words a native reader leaves no weight on (zhFunction: 哪些,
// 如何, 吗, as English drops "which", "how"); cut between are katakana and
// the characters around them (katakana words take no endings) and
// hiragana followed by kanji (a particle or an ending, then a new word).
// Kanji followed by hiragana stay joined: 読み, 使う are a word and its
// ending. Only the query is cut: the index holds every character, so this
// needs no reindex.
func cjParts(run []rune) [][]rune {
	var parts [][]rune
	start := 0
	for i := 0; i < len(run); {
		if n := zhFunctionAt(run[i:]); n > 0 {
			if i > start {
				parts = append(parts, run[start:i])
			}
			i += n
			start = i
			continue
		}
		if i > start && (isKatakana(run[i-1]) != isKatakana(run[i]) || isHiragana(run[i-1]) && !isHiragana(run[i])) {
			parts = append(parts, run[start:i])
			start = i
		}
		i++
	}
	if start < len(run) {
		parts = append(parts, run[start:])
	}
	return parts
}

// zhFunctionAt is the length in characters of the Chinese question or
// function word r starts with, 0 when none: words that ask (什么, 哪些,
// 如何, 怎么, 吗) rather than name what is asked about.
func zhFunctionAt(r []rune) int {
	for _, w := range zhFunction {
		if len(r) >= len(w) && string(r[:len(w)]) == string(w) {
			return len(w)
		}
	}
	return 0
}

// zhFunction is longest first, so 有哪些 is cut before 哪些.
var zhFunction = [][]rune{
	[]rune("有哪些"), []rune("有什么"), []rune("为什么"), []rune("是什么"), []rune("是否"),
	[]rune("什么"), []rune("哪些"), []rune("哪个"), []rune("哪里"), []rune("怎么"), []rune("怎样"),
	[]rune("如何"), []rune("吗"), []rune("呢"),
}

func isHiragana(r rune) bool { return r >= 0x3041 && r <= 0x309F }

func isKatakana(r rune) bool {
	return r >= 0x30A1 && r <= 0x30FF || r >= 0xFF66 && r <= 0xFF9F || r >= 0x31F0 && r <= 0x31FF
}
