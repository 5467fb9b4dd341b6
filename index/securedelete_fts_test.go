package index

import (
	"fmt"
	"testing"
)

// TestFTSDeleteLeavesNoTerm: the index's FTS5 table itself, as a full
// build leaves it, forgets a deleted row's terms: a delete in a
// transaction of its own (what an update that only removes a file runs)
// leaves no byte of a term no other row has.
func TestFTSDeleteLeavesNoTerm(t *testing.T) {
	const secret = "zq7vortexsecret"
	files := map[string]string{}
	for i := 1; i <= 200; i++ {
		files[fmt.Sprintf("logs/2026-%02d-%02d.md", i%12+1, i%28+1)] += fmt.Sprintf("## Day %d\n\nordinary words number %d walking dogs\n\n", i, i)
	}
	home := workspace(t, files)
	ix, _ := open(t, home)
	reindex(t, ix, true)
	for _, q := range []string{
		`INSERT INTO chunks(id, file_id, start_line, end_line, heading, date, text) VALUES (99999, 1, 1, 1, '', '', 'the secret ` + secret + ` here')`,
		`INSERT INTO chunks_fts(rowid, heading, text) VALUES (99999, '', 'the secret ` + secret + ` here')`,
		`INSERT INTO chunks_fts(chunks_fts, rowid, heading, text) VALUES ('delete', 99999, '', 'the secret ` + secret + ` here')`,
		`DELETE FROM chunks WHERE id = 99999`,
	} {
		if _, err := ix.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	ix.Close()
	if containsFold(t, home, secret[3:]) {
		t.Error("the deleted row's term is still in index.db")
	}
}
