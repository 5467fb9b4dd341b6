package index

import (
	"context"
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
	q := decodeVec(encodeVec(vs[0]))
	known := &unitCosines{}
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
