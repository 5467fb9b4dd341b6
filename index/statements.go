package index

import (
	"fmt"
	"strings"
)

// SearchStatements is what a search for query runs in the database, one
// candidate statement for each of its sub-queries, with the parameters
// spelled out: the bench's floors run exactly these, so that agent is
// compared with a program doing the same SQL work and nothing else.
func SearchStatements(query string, k int) []string {
	p := buildPlan(query, false)
	out := make([]string, 0, len(p.subs))
	for _, s := range p.subs {
		stmt := strings.ReplaceAll(sqlRankIDs, "?1", "'"+strings.ReplaceAll(s.match, "'", "''")+"'")
		out = append(out, strings.ReplaceAll(stmt, "?2", fmt.Sprint(max(k, poolSize)+k/2+4)))
	}
	return out
}
