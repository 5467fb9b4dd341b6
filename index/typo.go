package index

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Correction is a query word that matched nothing and the word of the
// index's own vocabulary searched in its place (typo.go).
type Correction struct {
	Typed    string `json:"typed"`
	Searched string `json:"searched"`
}

// typoMaxTerms: a query of more words than this (a chat message, mostly)
// is not checked for typos, each word costing a lookup of its own; a search
// someone types is shorter.
const typoMaxTerms = allMaxTerms

// typoMinLen is the shortest word corrected: a shorter one is a step or
// two from too many words to guess which was meant.
const typoMinLen = 4

// maxEdits is how far a typed word may be from the word searched for it:
// one edit (an insertion, deletion, substitution or swap of neighbours) up
// to five letters, two beyond.
func maxEdits(word string) int {
	if utf8.RuneCountInString(word) <= 5 {
		return 1
	}
	return 2
}

// corrections finds, for each word of the plan that no chunk holds, the
// nearest word of the index's vocabulary (chunks_vocab, the stems FTS5
// indexed) that starts with the same letter, within maxEdits, the most
// frequent among equals; and the form it is written in, read from a chunk
// that holds it. A word that has a hit is never replaced.
func (ix *Index) corrections(ctx context.Context, p plan) ([]Correction, error) {
	if p.raw || len(p.subs) == 0 {
		return nil, nil
	}
	terms := queryTerms(p.text)
	if len(terms) > typoMaxTerms {
		return nil, nil
	}
	var out []Correction
	for _, w := range terms {
		if utf8.RuneCountInString(w) < typoMinLen || !lettersOnly(w) {
			continue
		}
		var hit bool
		if err := ix.db.QueryRowContext(ctx, sqlAnyMatch, orQuery([]string{w}, "")).Scan(&hit); err != nil {
			return nil, err
		}
		if hit {
			continue
		}
		stem, err := ix.nearestTerm(ctx, w)
		if err != nil || stem == "" {
			return nil, err
		}
		form, err := ix.writtenForm(ctx, w, stem)
		if err != nil {
			return nil, err
		}
		if form != "" && form != w {
			out = append(out, Correction{Typed: w, Searched: form})
		}
	}
	return out, nil
}

// nearestTerm is the vocabulary's term nearest w (see corrections), "" for
// none within reach.
func (ix *Index) nearestTerm(ctx context.Context, w string) (string, error) {
	w = unaccent.Replace(w) // the vocabulary is without diacritics
	first, size := utf8.DecodeRuneInString(w)
	lo, hi := w[:size], string(first+1)
	rows, err := ix.db.QueryContext(ctx, sqlVocabFrom, lo, hi)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	reach := maxEdits(w)
	// The vocabulary holds stems: the typed word is compared as it is and
	// as a stem would end, "i" for "y" (birthday, birthdai) and without an
	// ending Porter strips (dispossessed, dispossess).
	typed := []string{w}
	if strings.HasSuffix(w, "y") {
		typed = append(typed, w[:len(w)-1]+"i")
	}
	for _, suf := range []string{"ing", "ed", "es", "s", "ly", "er"} {
		if s, ok := strings.CutSuffix(w, suf); ok && len(s) >= typoMinLen-1 {
			typed = append(typed, s)
		}
	}
	best, bestD, bestDocs := "", reach+1, 0
	n := utf8.RuneCountInString(w)
	for rows.Next() {
		var term string
		var docs int
		if err := rows.Scan(&term, &docs); err != nil {
			return "", err
		}
		if m := utf8.RuneCountInString(term); m < max(n-reach-3, typoMinLen-1) || m > n+reach || stopword(term) {
			continue // a stopword is no word a person meant to search for
		}
		d := reach + 1
		for _, t := range typed {
			d = min(d, edits(t, term, reach))
		}
		if d < bestD || d == bestD && docs > bestDocs {
			best, bestD, bestDocs = term, d, docs
		}
	}
	if bestD > reach {
		return "", rows.Err()
	}
	return best, rows.Err()
}

// writtenForm is how the text writes stem: of the words in a chunk that
// holds it, the one nearest the typed word.
func (ix *Index) writtenForm(ctx context.Context, typed, stem string) (string, error) {
	var text string
	if err := ix.db.QueryRowContext(ctx, sqlOneMatch, orQuery([]string{stem}, "")).Scan(&text); err != nil {
		return "", nil // the stem is no word of its own: nothing to show
	}
	best, bestD := "", 1<<30
	for _, word := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !isTokenRune(r) }) {
		if !strings.HasPrefix(unaccent.Replace(word), stem[:1]) {
			continue
		}
		if d := edits(unaccent.Replace(typed), unaccent.Replace(word), 1<<20); d < bestD {
			best, bestD = word, d
		}
	}
	return best, nil
}

// corrected is p with the corrections' words searched in place of the
// typed ones.
func corrected(p plan, fixes []Correction) plan {
	terms := queryTerms(p.text)
	for i, t := range terms {
		for _, f := range fixes {
			if t == f.Typed {
				terms[i] = f.Searched
			}
		}
	}
	np := buildPlan(strings.Join(terms, " "), false)
	np.days, np.dense, np.memo = p.days, p.dense, p.memo
	np.when = np.when || p.when
	return np
}

// unaccent takes the diacritics off the Latin letters notes are written
// with, as the index's tokenizer does (remove_diacritics 2).
var unaccent = strings.NewReplacer(
	"á", "a", "à", "a", "â", "a", "ã", "a", "ä", "a", "å", "a", "é", "e", "è", "e", "ê", "e", "ë", "e",
	"í", "i", "ì", "i", "î", "i", "ï", "i", "ó", "o", "ò", "o", "ô", "o", "õ", "o", "ö", "o", "ø", "o",
	"ú", "u", "ù", "u", "û", "u", "ü", "u", "ç", "c", "ñ", "n", "ý", "y", "ÿ", "y", "š", "s", "ž", "z",
	"č", "c", "ć", "c", "ł", "l", "ś", "s", "ź", "z", "ż", "z", "ń", "n", "ő", "o", "ű", "u", "ř", "r",
)

func lettersOnly(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) || hasSegmented(string(r)) {
			return false
		}
	}
	return true
}

// edits is the optimal string alignment distance of a and b (Levenshtein
// with swaps of neighbours), or more than limit when it exceeds it.
func edits(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		low := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			low = min(low, cur[j])
		}
		if low > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
