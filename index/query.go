package index

import (
	"strings"
	"unicode"
)

// maxTerms bounds how many words of a long message (a pasted paragraph, a
// chat turn) become query terms: each costs a posting-list scan.
const maxTerms = 64

// BuildQuery turns anything a person types into a safe FTS5 MATCH
// expression: its words, lower-cased, each quoted as an FTS5 string and
// OR-ed, so bm25 ranks chunks that hold more of them (and rarer ones) first.
// Operators, quotes, column filters and punctuation in the input are never
// interpreted. Stopwords are dropped unless nothing else is left. It returns
// "" when the text holds no word at all.
func BuildQuery(userText string) string {
	terms := queryTerms(userText)
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteString(" OR ")
		}
		// A term is letters and digits only, so it cannot hold a quote; the
		// doubling is what FTS5 strings need should that ever change.
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(t, `"`, `""`))
		b.WriteByte('"')
	}
	return b.String()
}

// queryTerms splits text into words the way FTS5's unicode61 tokenizer does
// (runs of letters, digits, marks and private-use characters), distinct, in
// order of appearance.
func queryTerms(text string) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !isTokenRune(r) })
	var all, kept []string
	seen := map[string]bool{}
	for _, w := range words {
		if seen[w] {
			continue
		}
		seen[w] = true
		all = append(all, w)
		if !stopword(w) {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		kept = all // "the who" still searches for something
	}
	if len(kept) > maxTerms {
		kept = kept[:maxTerms]
	}
	return kept
}

func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r) ||
		unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Co, r)
}

// stopword reports words too common to say what a note is about: English
// function words, question words and the pieces contractions split into. A
// single letter is one too, but a single digit is not ("room 5").
func stopword(w string) bool {
	if len(w) == 1 {
		return w[0] < '0' || w[0] > '9'
	}
	return isStopword(w)
}

// isStopword is a switch rather than a map so the list costs nothing at
// start-up (search runs in a fresh process every time).
func isStopword(w string) bool {
	switch w {
	case "a", "about", "above", "after", "again", "against", "all", "also",
		"am", "an", "and", "any", "are", "aren", "as", "at", "be", "because",
		"been", "before", "being", "below", "between", "both", "but", "by", "can",
		"cannot", "could", "couldn", "did", "didn", "do", "does", "doesn", "doing",
		"don", "down", "during", "each", "few", "for", "from", "further", "get",
		"got", "had", "hadn", "has", "hasn", "have", "haven", "having", "he",
		"her", "here", "hers", "herself", "him", "himself", "his", "how", "i",
		"if", "in", "into", "is", "isn", "it", "its", "itself", "just", "let",
		"ll", "may", "me", "might", "more", "most", "must", "mustn", "my",
		"myself", "no", "nor", "not", "of", "off", "on", "once", "only", "or",
		"other", "ought", "our", "ours", "ourselves", "out", "over", "own", "re",
		"same", "shall", "she", "should", "shouldn", "so", "some", "such", "than",
		"that", "the", "their", "theirs", "them", "themselves", "then", "there",
		"these", "they", "this", "those", "through", "to", "too", "under", "until",
		"up", "us", "ve", "very", "was", "wasn", "we", "were", "weren", "what",
		"when", "where", "which", "while", "who", "whom", "why", "will", "with",
		"won", "would", "wouldn", "you", "your", "yours", "yourself", "yourselves":
		return true
	}
	return false
}
