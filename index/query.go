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
	return orQuery(queryTerms(userText), " OR ")
}

// queryTerms splits text into words the way FTS5's unicode61 tokenizer does
// (runs of letters, digits, marks and private-use characters), distinct, in
// order of appearance.
func queryTerms(text string) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !isTokenRune(r) })
	var all, kept []string
	seen := map[string]bool{}
	for _, word := range words {
		split, function := splitWord(word) // CJK runs become bigrams (segment.go)
		for i, w := range split {
			if seen[w] {
				continue
			}
			seen[w] = true
			all = append(all, w)
			if !function[i] && !stopword(w) {
				kept = append(kept, w)
			}
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

// Weights of the sub-queries beside the plain OR of the words (weight 1);
// see docs/decisions-index.md, "Ranking".
const (
	// allWeight: the chunks holding every word rank above those holding
	// some (the OR query alone lets one rare word outweigh the rest).
	allWeight = 1.0
	// allMaxTerms: a longer message (a chat turn) has no chunk holding every
	// word, and the AND would cost a second pass over long posting lists.
	allMaxTerms = 6
	// formsWeight: the words' other forms Porter cannot join ("fly" and
	// "flights") count, but less than the words as typed.
	formsWeight = 0.3
	// whenWeight: for a question about a time, a found chunk whose text
	// says a date gains this share of its score.
	whenWeight = 0.3
)

// plan is what a search runs: its sub-queries, the first the plain one, and
// the expression whose terms a snippet marks.
type plan struct {
	subs    []subQuery
	snippet string
	// marks are the terms a snippet made in Go marks (segSnippet: the
	// chunks whose indexed form is not their text).
	marks []string
	raw   bool
	text  string // what the words were read from
	when  bool   // a question about a time: chunks that say a date rise
	// days, when set, keeps the search to the chunks of some days (days.go).
	days *daySpan
	// dense, when set, waits for the query's embedding (dense.go); nil
	// when the search is by words only.
	dense func() ([]float32, string)
	// memo keeps what the vector side read for a query run twice in one
	// search (freshQuery).
	memo *denseMemo
}

// match is the plain sub-query's expression, "" for a plan of days alone.
func (p plan) match() string {
	if len(p.subs) == 0 {
		return ""
	}
	return p.subs[0].match
}

// buildPlan turns a search's text into its sub-queries: the OR of its words
// (BuildQuery), the AND of them, the OR with their other word forms
// (wordForms). Each is built only when it differs from the plain query. A
// raw query is one sub-query, passed through.
func buildPlan(text string, raw bool) plan {
	if raw {
		if text == "" {
			return plan{raw: true}
		}
		match := rawForm(text)
		return plan{subs: []subQuery{{match: match, label: text, weight: 1}}, snippet: match, raw: true, marks: queryTerms(text)}
	}
	terms := queryTerms(text)
	if len(terms) == 0 {
		return plan{}
	}
	words := strings.Join(terms, " ")
	anyWord := orQuery(terms, " OR ")
	p := plan{subs: []subQuery{{match: anyWord, label: words, weight: 1}}, snippet: anyWord, marks: terms, text: text}
	if allWeight > 0 && len(terms) > 1 && len(terms) <= allMaxTerms {
		p.subs = append(p.subs, subQuery{match: orQuery(terms, " AND "), label: "all: " + words, weight: allWeight})
	}
	if all := withForms(terms); formsWeight > 0 && len(all) > len(terms) {
		p.snippet = orQuery(all, " OR ")
		p.marks = all
		p.subs = append(p.subs, subQuery{match: p.snippet, label: "forms: " + strings.Join(all[len(terms):], " "), weight: formsWeight})
	}
	p.when = whenWeight > 0 && asksWhen(text)
	return p
}

// orQuery joins terms, each quoted as an FTS5 string, with op.
func orQuery(terms []string, op string) string {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteString(op)
		}
		// A term is letters and digits only, so it cannot hold a quote; the
		// doubling is what FTS5 strings need should that ever change. A CJK
		// bigram is the phrase of its two characters (segment.go).
		if hasSegmented(t) {
			t = spaced(t)
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(t, `"`, `""`))
		b.WriteByte('"')
	}
	return b.String()
}

// withForms returns terms followed by the other forms of each (wordForms)
// not already among them, at most maxTerms in all.
func withForms(terms []string) []string {
	seen := map[string]bool{}
	for _, t := range terms {
		seen[t] = true
	}
	out := terms
	for _, t := range terms {
		for _, f := range wordForms(t) {
			if !seen[f] && len(out) < maxTerms {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// asksWhen reports a question about a time: "when", "how long ago", "what
// date/day/time/year/month".
func asksWhen(text string) bool {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !isTokenRune(r) })
	for i, w := range words {
		switch w {
		case "when", "ago":
			return true
		case "date", "day", "time", "year", "month":
			if i > 0 && (words[i-1] == "what" || words[i-1] == "which") {
				return true
			}
		}
	}
	return false
}

// saysDate reports whether text holds a date word: a month or weekday
// name, or a relative day ("yesterday", "tonight", "weekend"). Years and
// numeric dates are not counted: a daily log's first chunk starts with its
// "# 2026-07-01" heading line, so they would mark every log.
func saysDate(text string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !isTokenRune(r) }) {
		if dateWords[w] {
			return true
		}
	}
	return false
}

// dateWords are the words that say when: month and day names, relative days.
var dateWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`january february march april may june july august september october
		november december jan feb mar apr jun jul aug sep sept oct nov dec
		monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun
		yesterday today tomorrow tonight weekend`) {
		m[w] = true
	}
	return m
}()
