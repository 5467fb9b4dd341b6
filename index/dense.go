package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"agent/memory/printable"
)

// Fusion of embeddings into a search (docs/decisions-index.md,
// "Embeddings", has the measurements behind each constant).
const (
	// denseWeight is the share of the dense score in the fused one, beside
	// the lexical sub-queries' (the plain one weighs 1).
	denseWeight = 0.10
	// densePool is how many chunks the vector search adds as candidates
	// (0: it only re-scores the lexical ones).
	densePool = poolSize
)

// denseTuning is how embeddings join a search and what is embedded. Open
// gives every Index the measured values; only the LoCoMo measurement
// (locomo_dense_test.go) tries others, each on its own Index, so nothing
// that a test changes is shared.
type denseTuning struct {
	weight float64               // denseWeight
	pool   int                   // densePool
	split  func(string) []string // units; the measurement compares whole chunks
}

func defaultDense() denseTuning {
	return denseTuning{weight: denseWeight, pool: densePool, split: units}
}

// queryTimeout bounds the query's embedding: a model that has to be loaded
// takes seconds, a wedged server must not hold up a search or a turn.
const queryTimeout = 15 * time.Second

// denseLabel is Hit.Query for a chunk the vector search gave most of its
// score.
const denseLabel = "meaning"

// startDense embeds the query in the background while the lexical part of
// the search runs; the returned function waits for the vector, or returns
// nil when there is none to use (no embedder, a raw query, the model
// unavailable: said once, and the search stays lexical).
func (ix *Index) startDense(ctx context.Context, query string, raw bool) func() ([]float32, string) {
	e := ix.embedder
	if e == nil || raw {
		return nil
	}
	type result struct {
		vec []float32
		id  string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(ctx, queryTimeout)
		defer cancel()
		// The vector first: an Embedder learns its dimensions from it.
		vs, err := e.Embed(ctx, []string{query})
		if err == nil && (len(vs) != 1 || len(vs[0]) == 0) {
			err = fmt.Errorf("%s returned no vector", e.Name())
		}
		var id string
		if err == nil {
			id, err = e.Identity(ctx)
		}
		if err != nil {
			ch <- result{err: err}
			return
		}
		normalize(vs[0]) // the embedder's own slice, ours now
		ch <- result{vec: vs[0], id: id}
	}()
	return func() ([]float32, string) {
		r := <-ch
		if r.err != nil {
			ix.denseNotice(fmt.Sprintf("embedding model %s unavailable (%v): searching by words only", e.Name(), r.err))
			return nil, ""
		}
		return r.vec, r.id
	}
}

// denseNotice tells the user once per Index why a search is lexical only.
func (ix *Index) denseNotice(msg string) {
	if ix.denseOff == "" {
		ix.denseOff = msg
		ix.warn(msg)
	}
}

// fuseDense adds the dense score to the lexical candidates and the vector
// search's own candidates: each chunk's score is the best cosine of its
// units (paragraphs, a conversation's turns) with the query, min-max
// normalised over the candidates and weighted by denseWeight. A chunk not
// embedded yet gets the median of the others, so it neither rises nor
// falls for being new.
func (ix *Index) fuseDense(ctx context.Context, q []float32, id string, memo *denseMemo, order []*candidate, byID map[int64]*candidate) ([]*candidate, error) {
	model, err := ix.storedModel(ctx, memo)
	if err != nil {
		return nil, err
	}
	if model == "" {
		ix.denseNotice(fmt.Sprintf("no passage is embedded with %s yet (agent memory reindex embeds them): searching by words only", ix.embedder.Name()))
		return order, nil
	}
	if model != id {
		ix.denseNotice(fmt.Sprintf("the passages are embedded with %s, not %s (agent memory reindex embeds them again): searching by words only", model, id))
		return order, nil
	}
	best, err := ix.scanVectors(ctx, q, id, memo)
	if err != nil {
		return nil, err
	}
	if len(best) == 0 {
		return order, nil
	}
	// The vector search's candidates: the chunks with the best units.
	type scored struct {
		id  int64
		cos float32
	}
	all := make([]scored, 0, len(best))
	for cid, c := range best {
		all = append(all, scored{cid, c})
	}
	sort.Slice(all, func(i, j int) bool {
		return all[i].cos > all[j].cos || all[i].cos == all[j].cos && all[i].id > all[j].id
	})
	var extra []int64
	for _, s := range all[:min(ix.dense.pool, len(all))] { // the pool may be 0
		if _, ok := byID[s.id]; !ok {
			extra = append(extra, s.id)
		}
	}
	added, err := ix.candidateRows(ctx, extra)
	if err != nil {
		return nil, err
	}
	for _, c := range added {
		c.sub = -1
		byID[c.id] = c
		order = append(order, c)
	}
	lo, hi := float32(2), float32(-2)
	var known []float32
	for _, c := range order {
		if cos, ok := best[c.id]; ok {
			lo, hi = min(lo, cos), max(hi, cos)
			known = append(known, cos)
		}
	}
	if len(known) == 0 || hi <= lo {
		return order, nil
	}
	sort.Slice(known, func(i, j int) bool { return known[i] < known[j] })
	median := known[len(known)/2]
	for _, c := range order {
		cos, ok := best[c.id]
		if !ok {
			cos = median
		}
		part := ix.dense.weight * float64(cos-lo) / float64(hi-lo)
		c.score += part
		if part > c.best {
			c.sub, c.best = -1, part
		}
	}
	return order, nil
}

// denseMemo is what the vector side of one search reads once and keeps
// for a query run twice (freshQuery finds a file changed, updates the
// index and queries again; the update embeds nothing): the model the
// stored vectors belong to, and each unit's cosine with the query by the
// unit's text hash, so the second query reads which chunks hold which
// unit rather than every vector again.
type denseMemo struct {
	model     string // the meta table's embed_model, "" when nothing was embedded
	haveModel bool
	byHash    map[[16]byte]float32
	scanned   bool // byHash has every unit a chunk held at the scan
}

// know takes the embedding model from meta facts the search read anyway.
func (d *denseMemo) know(m metaFacts) {
	if d != nil {
		d.model, d.haveModel = m.embedModel, true
	}
}

// storedModel is the identity the stored vectors belong to, "" when none
// is: the meta table's, read once per search. The key is written in the
// transaction that makes the vector tables, so it also says they exist.
func (ix *Index) storedModel(ctx context.Context, memo *denseMemo) (string, error) {
	if memo != nil && memo.haveModel {
		return memo.model, nil
	}
	m, err := ix.meta(ctx)
	if err != nil {
		return "", err
	}
	memo.know(m)
	return m.embedModel, nil
}

// scanVectors is the brute-force vector search: the best cosine of each
// embedded chunk's units with q. Two sequential scans, no join: which
// chunks hold each unit text, then every stored vector once, read in place
// (a join looked each vector up by its hash: slower per unit). With the
// cosines of an earlier scan in the same search, the vectors are not read
// again: only a unit embedded since (by a pass in another process) is
// looked up.
func (ix *Index) scanVectors(ctx context.Context, q []float32, id string, memo *denseMemo) (map[int64]float32, error) {
	holders := map[[16]byte][]int64{}
	rows, err := ix.db.QueryContext(ctx, sqlScanUnits)
	if err != nil {
		return nil, err
	}
	var cid int64
	var raw sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&cid, &raw); err != nil {
			rows.Close()
			return nil, err
		}
		var h [16]byte
		copy(h[:], raw)
		holders[h] = append(holders[h], cid)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if memo == nil {
		memo = &denseMemo{}
	}
	if memo.byHash == nil {
		memo.byHash = make(map[[16]byte]float32, len(holders))
	}
	if memo.scanned {
		if err := ix.lookUpCosines(ctx, q, id, holders, memo.byHash); err != nil {
			return nil, err
		}
	} else {
		if err := ix.scanCosines(ctx, q, id, holders, memo.byHash); err != nil {
			return nil, err
		}
		memo.scanned = true
	}
	best := map[int64]float32{}
	for h, cids := range holders {
		cos, ok := memo.byHash[h]
		if !ok {
			continue // a unit row whose vector is gone
		}
		for _, c := range cids {
			if have, ok := best[c]; !ok || cos > have {
				best[c] = cos
			}
		}
	}
	return best, nil
}

// scanCosines reads every stored vector of the model once, in place, and
// records the cosine with q of each one a chunk holds.
func (ix *Index) scanCosines(ctx context.Context, q []float32, id string, holders map[[16]byte][]int64, into map[[16]byte]float32) error {
	rows, err := ix.db.QueryContext(ctx, sqlScanVectors, id)
	if err != nil {
		return err
	}
	defer rows.Close()
	var hash, vec sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&hash, &vec); err != nil {
			return err
		}
		if len(hash) != 16 {
			continue
		}
		if len(holders[[16]byte(hash)]) == 0 {
			continue // a paragraph no chunk holds any more
		}
		into[[16]byte(hash)] = dotBlob(q, vec)
	}
	return rows.Err()
}

// lookUpCosines adds the cosines of the held units an earlier scan did not
// see, one indexed look-up each.
func (ix *Index) lookUpCosines(ctx context.Context, q []float32, id string, holders map[[16]byte][]int64, into map[[16]byte]float32) error {
	var look *sql.Stmt
	for h := range holders {
		if _, ok := into[h]; ok {
			continue
		}
		if look == nil {
			var err error
			if look, err = ix.db.PrepareContext(ctx, sqlVectorByHash); err != nil {
				return err
			}
			defer look.Close()
		}
		var vec []byte
		switch err := look.QueryRowContext(ctx, id, h[:]).Scan(&vec); {
		case err == nil:
			into[h] = dotBlob(q, vec)
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
	}
	return nil
}

// candidateRows reads the date and file of chunks the vector search found.
func (ix *Index) candidateRows(ctx context.Context, ids []int64) ([]*candidate, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	js, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT c.id, c.date, c.file_id, c.by FROM json_each(?1) j JOIN chunks c ON c.id = j.value`, string(js))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*candidate
	for rows.Next() {
		c := &candidate{}
		if err := rows.Scan(&c.id, &c.date, &c.file, &c.by); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// lead is the snippet of a hit found by meaning alone: its first words.
func lead(text string) string {
	const most = 120
	r := []rune(printable.OneLine(text))
	if len(r) <= most {
		return string(r)
	}
	return string(r[:most]) + "…"
}
