package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"math"
	"sort"
)

// Ranking of a search (docs/decisions-index.md, "Ranking", has the
// measurements behind each constant).
const (
	// poolSize is how many chunks each sub-query ranks before fusion.
	poolSize = 60
	// nextShare is the share of a chunk's score the chunk after it in the
	// same file receives: in a conversation, a plan or a list the answer is
	// often the block after the one that names the subject.
	nextShare = 0.2
	// sameDateDecay multiplies a chunk's score for each chunk of the same
	// date already ranked above it (its own neighbours excepted), so
	// evidence spread over several days fits the budget.
	sameDateDecay = 0.8
	// assistantShare multiplies the score of the assistant's words (a
	// logged turn's reply): the user's note about the same thing ranks
	// first, and a model's wrong answer is not reinforced by its own
	// transcript (docs/decisions-index.md, "Whose words").
	assistantShare = 0.5
)

// subQuery is one FTS5 MATCH expression of a search and what it stands for.
type subQuery struct {
	match  string  // FTS5 expression
	label  string  // what Hit.Query reports
	weight float64 // its share in the fused score
}

// candidate is a chunk a sub-query found, before its text is read.
type candidate struct {
	id    int64
	score float64 // bm25, sign flipped; after fusion the fused score
	date  string
	file  int64
	by    string  // chunks.by: "assistant" for the assistant's words
	sub   int     // the sub-query that gave it most of its score
	best  float64 // that sub-query's contribution
	plain float64 // the plain query's contribution (subs[0])
}

// rankPlan runs every sub-query of p and returns the chunks to show, best
// first, at most k. Each sub-query's bm25 scores are divided by its best
// one and weighted, and a chunk's scores are summed over the sub-queries
// (a chunk found by several ranks higher); then the chunk after each one
// gets a share of its score, and a chunk's score decays with each chunk of
// its date ranked above it.
func (ix *Index) rankPlan(ctx context.Context, p plan, k int) ([]candidate, error) {
	pool := max(k, poolSize)
	byID := map[int64]*candidate{}
	var order []*candidate
	for si, s := range p.subs {
		cs, err := ix.candidates(ctx, s.match, pool, k, p.days)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			part := s.weight * c.score / max(cs[0].score, 1e-9)
			have, ok := byID[c.id]
			if !ok {
				c := c
				c.score, c.sub, c.best = 0, si, part
				have = &c
				byID[c.id] = have
				order = append(order, have)
			} else if part > have.best {
				have.sub, have.best = si, part
			}
			have.score += part
			if si == 0 {
				have.plain = part
			}
		}
	}
	if p.dense != nil {
		if q, id := p.dense(); q != nil {
			var err error
			if order, err = ix.fuseDense(ctx, q, id, p.memo, order, byID); err != nil {
				return nil, err
			}
		}
	}
	if p.days != nil {
		order = inDays(order, p.days)
		// The days' other entries join a search whose days its words
		// named; --since/--until only filter, unless no word is left.
		if !p.days.strict || len(p.subs) == 0 {
			var err error
			if order, err = ix.ofDays(ctx, p.days, pool, byID, order); err != nil {
				return nil, err
			}
		}
	}
	if p.when {
		if err := ix.liftDated(ctx, order); err != nil {
			return nil, err
		}
	}
	liftNext(order, byID)
	for _, c := range order {
		if c.by != "" {
			c.score *= assistantShare
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].score != order[j].score {
			return order[i].score > order[j].score
		}
		return order[i].date > order[j].date
	})
	return spreadDates(order, k), nil
}

// liftDated ranks the candidates whose text says a date (saysDate) as a
// sub-query of weight whenWeight would, by their plain score: for "when do I fly to Lisbon" the note
// with the date of the flight. Reading the candidates' text costs less than
// a sub-query of date words, some of which ("today", "march") are in many
// chunks.
func (ix *Index) liftDated(ctx context.Context, order []*candidate) error {
	if len(order) == 0 {
		return nil
	}
	ids := make([]int64, len(order))
	at := make(map[int64]*candidate, len(order))
	for i, c := range order {
		ids[i] = c.id
		at[c.id] = c
	}
	js, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	rows, err := ix.db.QueryContext(ctx, sqlChunkTexts, string(js))
	if err != nil {
		return err
	}
	defer rows.Close()
	var dated []*candidate
	best := 1e-9
	for rows.Next() {
		var id int64
		var text string
		if err := rows.Scan(&id, &text); err != nil {
			return err
		}
		if c := at[id]; saysDate(text) {
			dated = append(dated, c)
			best = max(best, c.plain)
		}
	}
	// As if the dated chunks were a sub-query of their own: scores
	// divided by its best one.
	for _, c := range dated {
		c.score += whenWeight * c.plain / best
	}
	return rows.Err()
}

// liftNext gives each candidate nextShare of the score of the candidate
// before it in the same file. Only chunks some sub-query found are lifted:
// a search returns chunks that match (lifting the unmatched ones too bought
// nothing within the budgets, docs/decisions-index.md).
func liftNext(order []*candidate, byID map[int64]*candidate) {
	base := make(map[int64]float64, len(order))
	for _, c := range order {
		base[c.id] = c.score
	}
	for _, c := range order {
		if c.sub == subDays {
			continue // found by its date alone: no score of words to share
		}
		if prev, ok := byID[c.id-1]; ok && prev.file == c.file && prev.sub != subDays {
			c.score += nextShare * base[prev.id]
		}
	}
}

// spreadDates picks the first k of order greedily: a chunk's score decays by
// sameDateDecay for every chunk of its date already picked, its neighbours
// in the file excepted (a passage and its continuation belong together).
func spreadDates(order []*candidate, k int) []candidate {
	n := min(k, len(order))
	picked := make([]candidate, 0, n)
	used := make([]bool, len(order))
	perDate := map[string]int{}    // chunks picked, by date
	pickedOn := map[int64]string{} // their dates by id, to except a chunk's neighbours
	for len(picked) < n {
		best, bestScore := -1, 0.0
		for i, c := range order {
			if used[i] {
				continue
			}
			s := c.score
			if c.date != "" {
				same := perDate[c.date]
				for _, id := range []int64{c.id - 1, c.id + 1} {
					if d, ok := pickedOn[id]; ok && d == c.date {
						same--
					}
				}
				s *= math.Pow(sameDateDecay, float64(same))
			}
			if best < 0 || s > bestScore {
				best, bestScore = i, s
			}
		}
		used[best] = true
		c := *order[best]
		c.score = bestScore
		picked = append(picked, c)
		perDate[c.date]++
		pickedOn[c.id] = c.date
	}
	return picked
}

// candidates returns the best n chunks for match by bm25, ties broken by the
// newer date. SQLite ranks ids only; when the k-th score is tied with the
// last row fetched, the fetch widens so the tie is broken by date.
func (ix *Index) candidates(ctx context.Context, match string, n, k int, days *daySpan) ([]candidate, error) {
	for lim := n + k/2 + 4; ; lim *= 4 {
		cs, err := ix.candidatesN(ctx, match, lim, days)
		if err != nil {
			return nil, err
		}
		sort.SliceStable(cs, func(i, j int) bool {
			if cs[i].score != cs[j].score {
				return cs[i].score > cs[j].score
			}
			return cs[i].date > cs[j].date
		})
		if len(cs) < lim || len(cs) <= k || cs[k-1].score != cs[len(cs)-1].score {
			return cs[:min(n, len(cs))], nil
		}
	}
}

func (ix *Index) candidatesN(ctx context.Context, match string, n int, days *daySpan) ([]candidate, error) {
	stmt, args := sqlRankIDs, []any{match, n}
	if days != nil {
		stmt, args = sqlRankIDsOfDays, append(args, days.from, days.to)
	}
	rows, err := ix.db.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cs []candidate
	for rows.Next() {
		var c candidate
		var bm25 float64
		if err := rows.Scan(&c.id, &bm25, &c.date, &c.file, &c.by); err != nil {
			return nil, err
		}
		c.score = -bm25
		cs = append(cs, c)
	}
	return cs, rows.Err()
}

// fetch reads the hits for cs, in their order, in one statement. snippet,
// when not "", is the expression whose terms the snippets mark.
func (ix *Index) fetch(ctx context.Context, cs []candidate, p plan, snippet string) ([]Hit, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(cs))
	for i, c := range cs {
		ids[i] = c.id
	}
	js, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	stmt, args := sqlFetchHits, []any{string(js), snippet}
	if snippet == "" {
		stmt, args = sqlFetchHitsNoSnippet, args[:1]
	}
	rows, err := ix.db.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byID := make(map[int64]Hit, len(cs))
	for rows.Next() {
		var h Hit
		var id int64
		var snip sql.NullString
		if err := rows.Scan(&id, &h.Path, &h.StartLine, &h.EndLine, &h.Heading, &h.Date, &h.By, &h.Text, &snip); err != nil {
			return nil, err
		}
		h.Snippet = snip.String
		byID[id] = h
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	hits := make([]Hit, 0, len(cs))
	for _, c := range cs {
		h, ok := byID[c.id]
		if !ok {
			continue
		}
		h.Score = c.score
		if snippet != "" && hasSegmented(h.Text) {
			// FTS5's snippet() marks by the positions of the token form.
			h.Snippet = segSnippet(h.Text, p.marks)
		}
		if c.sub == subDays {
			h.Query = p.days.label
		} else if c.sub < 0 {
			h.Query = denseLabel
			if snippet != "" && h.Snippet == "" {
				h.Snippet = lead(h.Text) // no word of the query in it to show
			}
		} else {
			h.Query = p.subs[c.sub].label
		}
		hits = append(hits, h)
	}
	return hits, nil
}
