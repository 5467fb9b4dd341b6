package forget

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"hash"
	"strings"
	"unicode"
	"unicode/utf8"

	"agent/core/forgotten"
)

// Marker stands where a forgotten phrase was: the text around it stays
// byte for byte, and a reader (the user, the model) sees that something was
// taken out rather than a sentence that silently changed meaning.
const Marker = "[forgotten]"

// fold is the one case rule: a phrase matches whatever reads the same in
// lower case, rune by rune ("Marta", "MARTA", "marta"). It keeps the rune
// count, which the hashes of forgotten phrases rely on (Forgotten.Holds).
func fold(r rune) rune { return unicode.ToLower(r) }

// span is one occurrence: text[start:end].
type span struct{ start, end int }

// find returns every non-overlapping occurrence of phrase in text, in order,
// compared rune by rune under fold.
func find(text, phrase string) []span {
	if phrase == "" || len(text) == 0 {
		return nil
	}
	first, _ := utf8.DecodeRuneInString(phrase)
	first = fold(first)
	var out []span
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if fold(r) == first {
			if end, ok := matchAt(text, i, phrase); ok {
				out = append(out, span{i, end})
				i = end
				continue
			}
		}
		i += n
	}
	return out
}

// matchAt reports whether phrase matches text at byte i, and where the
// match ends.
func matchAt(text string, i int, phrase string) (int, bool) {
	for _, p := range phrase {
		if i >= len(text) {
			return 0, false
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if fold(r) != fold(p) {
			return 0, false
		}
		i += n
	}
	return i, true
}

// contains reports whether text holds phrase under fold.
func contains(text, phrase string) bool {
	return len(find(text, phrase)) > 0
}

// finder finds every non-overlapping occurrence of what is forgotten in a
// text: a phrase typed here (find), or a phrase another device forgot, known
// only by its hash (hashFinder).
type finder func(text string) []span

func phraseFinder(phrase string) finder {
	return func(text string) []span { return find(text, phrase) }
}

// hashFinder finds the stretches of text, runes long, whose folded form
// hashes (with salt, by h: an HMAC under a forget key, or a plain SHA-256
// for a row made before keys) to hash: a phrase forgotten before, or on
// another device, which only its hash reached. One hash per character of
// text.
func hashFinder(h hash.Hash, salt []byte, sum string, runes int) finder {
	want, err := hex.DecodeString(sum)
	if err != nil || runes <= 0 {
		return func(string) []span { return nil }
	}
	return func(text string) []span {
		if utf8.RuneCountInString(text) < runes {
			return nil
		}
		var offs []int
		var folded []rune
		for i, r := range text {
			offs = append(offs, i)
			folded = append(folded, fold(r))
		}
		offs = append(offs, len(text))
		var sum [sha256.Size]byte
		var buf []byte
		var out []span
		for i := 0; i+runes <= len(folded); {
			buf = buf[:0]
			for _, r := range folded[i : i+runes] {
				buf = utf8.AppendRune(buf, r)
			}
			h.Reset()
			h.Write(salt)
			h.Write(buf)
			if bytes.Equal(h.Sum(sum[:0]), want) {
				out = append(out, span{offs[i], offs[i+runes]})
				i += runes
				continue
			}
			i++
		}
		return out
	}
}

// replace returns text with every occurrence of phrase replaced by Marker,
// and how many there were.
func replace(text, phrase string) (string, int) {
	return replaceFound(text, phraseFinder(phrase))
}

// replaceFound returns text with every occurrence f finds replaced by
// Marker, and how many there were.
func replaceFound(text string, f finder) (string, int) {
	spans := f(text)
	if len(spans) == 0 {
		return text, 0
	}
	var b strings.Builder
	last := 0
	for _, s := range spans {
		b.WriteString(text[last:s.start])
		b.WriteString(Marker)
		last = s.end
	}
	b.WriteString(text[last:])
	return b.String(), len(spans)
}

// foldString is s with every rune folded.
func foldString(s string) string { return strings.Map(fold, s) }

// findersOf are the finders of forgotten phrases, each by the hash it was
// kept as: under the forget key it names (one this workspace holds; a
// phrase whose key is not here is passed over), or a plain SHA-256.
func findersOf(ctx context.Context, db *sql.DB, list []forgotten.Phrase) ([]finder, error) {
	if len(list) == 0 {
		return nil, nil
	}
	keys, _, err := forgotten.Keys(ctx, db)
	if err != nil {
		return nil, err
	}
	var out []finder
	for _, p := range list {
		if f := finderFor(p, keys); f != nil {
			out = append(out, f)
		}
	}
	return out, nil
}

// finderFor is the finder of one phrase, nil when its key is not here.
func finderFor(p forgotten.Phrase, keys map[string]forgotten.Key) finder {
	if p.KeyID == "" {
		return hashFinder(forgotten.Plain(), p.Salt, p.Hash, p.Runes)
	}
	k, ok := keys[p.KeyID]
	if !ok {
		return nil
	}
	return hashFinder(k.Hash(), p.Salt, p.Hash, p.Runes)
}

// onlyMarkers reports whether text holds nothing but markers and blanks:
// what a forget would leave of a file, a line or a message that was only
// the phrase.
func onlyMarkers(text string) bool {
	return strings.TrimSpace(strings.ReplaceAll(text, Marker, "")) == ""
}
