package index

import "context"

// rank is rankPlan, or, for a search whose time words favour their days
// rather than keep to them (SearchOptions.FavourDays, the chat's recall),
// favoured's merge of two rankings: the days' chunks, as a search that
// keeps to them ranks them, and every chunk, by the other words.
func (ix *Index) rank(ctx context.Context, p plan, k int, favour bool) ([]candidate, error) {
	if !favour || p.days == nil || p.days.strict {
		return ix.rankPlan(ctx, p, k)
	}
	ofDays, err := ix.rankPlan(ctx, p, k)
	if err != nil {
		return nil, err
	}
	var rest []candidate
	if len(p.subs) > 0 && saysMore(p.text) {
		all := p
		all.days = nil
		if rest, err = ix.rankPlan(ctx, all, k); err != nil {
			return nil, err
		}
	}
	return favoured(ofDays, rest, p.days, k), nil
}

// favoured merges the best chunks of the asked days (ofDays) into the
// ranking of the other words over all chunks (rest): the days' chunks take
// up to half of the k places, more when rest has too few, and come ahead
// of rest's chunks of other days; rest's undated chunks (MEMORY.md's
// facts, undated notes) and its chunks of the asked days keep their
// places before them. "what should I cook tonight" keeps the fact "I'm
// vegetarian, I cook without meat" and gains tonight's log; "what did I do
// yesterday", no other word, is yesterday's log alone.
func favoured(ofDays, rest []candidate, d *daySpan, k int) []candidate {
	seen := make(map[int64]bool, k)
	var days []candidate // the days' chunks given places, best first
	for _, c := range ofDays {
		if len(days) == (k+1)/2 {
			break
		}
		days = append(days, c)
		seen[c.id] = true
	}
	var kept []candidate // rest's chunks given places, in its order
	for _, c := range rest {
		if len(days)+len(kept) == k {
			break
		}
		if !seen[c.id] {
			kept = append(kept, c)
			seen[c.id] = true
		}
	}
	for _, c := range ofDays[len(days):] {
		if len(days)+len(kept) == k {
			break
		}
		if !seen[c.id] {
			days = append(days, c)
			seen[c.id] = true
		}
	}
	out := make([]candidate, 0, len(days)+len(kept))
	for _, c := range kept {
		if days != nil && c.date != "" && (c.date < d.from || c.date > d.to) {
			out = append(out, days...)
			days = nil
		}
		out = append(out, c)
	}
	return append(out, days...)
}

// saysMore reports whether text has a word that is not a stopword: what is
// left of "what did I do yesterday" without its time words finds nothing
// of its own (a search of its stopwords alone would find any passage).
func saysMore(text string) bool {
	for _, t := range queryTerms(text) {
		if !stopword(t) {
			return true
		}
	}
	return false
}
