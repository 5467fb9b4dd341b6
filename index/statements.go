package index

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Statements is the SQL a search for query runs on this index, parameters
// spelled out, in order: one candidate statement for each sub-query, then
// the fetch of the k chunks kept (with their snippets, as the CLI reads
// them, or without, as a chat's recall does). The bench's floors
// run exactly these, so that agent is compared with a program doing the
// same SQL work and nothing else. (A "when" question also reads its
// candidates' text to lift the dated ones; that statement is left out.)
func (ix *Index) Statements(ctx context.Context, query string, k int, snippets bool) ([]string, error) {
	release, err := ix.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	if ix.db == nil {
		return nil, fmt.Errorf("statements: %s", ix.full.why)
	}
	p := buildPlan(query, false)
	if len(p.subs) == 0 {
		return nil, fmt.Errorf("%w: %q has no word to search for", ErrNoTerms, query)
	}
	var out []string
	for _, s := range p.subs {
		out = append(out, spell(sqlRankIDs, s.match, fmt.Sprint(max(k, poolSize)+k/2+4)))
	}
	cs, err := ix.rankPlan(ctx, p, k)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(cs))
	for i, c := range cs {
		ids[i] = c.id
	}
	js, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	if !snippets {
		return append(out, spell(sqlFetchHitsNoSnippet, string(js), "")), nil
	}
	return append(out, spell(sqlFetchHits, string(js), p.snippet)), nil
}

// spell writes a statement's ?1 and ?2 as SQL literals (?2 a number when it
// looks like one).
func spell(stmt, p1, p2 string) string {
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	lit2 := quote(p2)
	if _, err := fmt.Sscanf(p2, "%d", new(int)); err == nil && !strings.ContainsAny(p2, " \"'") {
		lit2 = p2
	}
	return strings.ReplaceAll(strings.ReplaceAll(stmt, "?1", quote(p1)), "?2", lit2)
}
