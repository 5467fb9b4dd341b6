package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A search that runs its query twice (freshQuery, after an update) reads
// the stored vectors once: the second scan takes the cosines from the
// first, and looks up only a unit embedded in between.
func TestSecondScanReusesCosines(t *testing.T) {
	ctx := context.Background()
	home := workspace(t, map[string]string{
		"logs/2026-11-20.md": "# a\n\ntulip bulbs by the fence\n\nthe boiler made a noise\n",
		"logs/2026-11-21.md": "# b\n\nmeeting about the budget\n",
	})
	ix, _ := open(t, home)
	e := wordVectors{dims: 8}
	ix.SetEmbedder(e)
	reindex(t, ix, false)
	if _, err := ix.Embed(ctx, EmbedOptions{}); err != nil {
		t.Fatal(err)
	}
	id, _ := e.Identity(ctx)
	vs, _ := e.Embed(ctx, []string{"tulip fence"})
	q := vs[0]
	normalize(q)
	known := &denseMemo{}
	first, err := ix.scanVectors(ctx, q, id, known)
	if err != nil || len(first) == 0 {
		t.Fatalf("first scan: %v %v", first, err)
	}
	// Were the vectors read again, this would change every cosine to 0.
	if _, err := ix.db.ExecContext(ctx, `UPDATE vectors SET vec = zeroblob(length(vec))`); err != nil {
		t.Fatal(err)
	}
	// A unit embedded since the first scan is looked up.
	vs, _ = e.Embed(ctx, []string{"tulip fence"})
	h := unitHash("tulip fence")
	if _, err := ix.db.ExecContext(ctx, sqlInsertVector, id, h, encodeVec(vs[0])); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.db.ExecContext(ctx, `INSERT INTO vec_units(chunk_id, unit, hash) VALUES (999, 0, ?1)`, h); err != nil {
		t.Fatal(err)
	}
	second, err := ix.scanVectors(ctx, q, id, known)
	if err != nil {
		t.Fatal(err)
	}
	for cid, cos := range first {
		if second[cid] != cos {
			t.Errorf("chunk %d: cosine %v on the second scan, %v on the first", cid, second[cid], cos)
		}
	}
	if cos := second[999]; cos < 0.99 {
		t.Errorf("the unit embedded in between: cosine %v, want 1", cos)
	}
	// A scan of its own reads the vectors as they are now.
	fresh, err := ix.scanVectors(ctx, q, id, nil)
	if err != nil || fresh[999] < 0.99 || len(fresh) != len(second) {
		t.Fatalf("a new search's scan: %v %v", fresh, err)
	}
	for cid := range first {
		if fresh[cid] != 0 {
			t.Errorf("chunk %d: a new search's scan did not read the vectors again", cid)
		}
	}
}

// The search reads which model the stored vectors belong to from the meta
// table: none yet, another one, the same one.
func TestSearchByMeaningNeedsTheSameModel(t *testing.T) {
	ctx := context.Background()
	home := workspace(t, map[string]string{
		"logs/2026-11-20.md": "# a\n\ntulip bulbs by the fence\n",
		"logs/2026-11-21.md": "# b\n\nmeeting about the budget\n",
	})
	for _, c := range []struct {
		embed, search int // dimensions: another number, another identity
		says          string
	}{
		{0, 8, "no passage is embedded with words yet"},
		{8, 16, "the passages are embedded with words/8, not words/16"},
		{8, 8, ""},
	} {
		os.Remove(filepath.Join(home, FileName))
		ix, w := open(t, home)
		reindex(t, ix, false)
		if c.embed > 0 {
			ix.SetEmbedder(wordVectors{dims: c.embed})
			if _, err := ix.Embed(ctx, EmbedOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		ix.SetEmbedder(wordVectors{dims: c.search})
		hits := search(t, ix, "tulip", SearchOptions{Fresh: true})
		msgs := w.take()
		if c.says == "" && len(msgs) != 0 || c.says != "" && !hasWarning(msgs, c.says) {
			t.Errorf("embedded %d, searched %d: warnings %q, want %q", c.embed, c.search, msgs, c.says)
		}
		// The other chunk comes only by meaning, and only with the model
		// the vectors are of.
		if byMeaning := len(hits) == 2 && hits[1].Query == denseLabel; byMeaning != (c.says == "") {
			t.Errorf("embedded %d, searched %d: hits %+v", c.embed, c.search, hits)
		}
		ix.Close()
	}
}
