//go:build locomo

// Search by meaning on LoCoMo (docs/decisions-index.md, "Embeddings"): the
// dev split scored as TestLocomoCeiling scores it, lexical beside fused
// with an embedding model served by Ollama at OLLAMA_HOST, for each weight:
//
//	LOCOMO_EMBED=glove LOCOMO_WEIGHTS=0.3,0.5,1 OLLAMA_HOST=… \
//	  go test -tags 'sqlite_fts5 locomo' -count=1 -v -run TestLocomoDense ./index
//
// LOCOMO_WHOLE=1 embeds whole chunks instead of their paragraphs (turns).
package index

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/envconfig"
)

// ollamaEmbedder is core/embed's request in a few lines (core/embed imports
// this package, so this test cannot import it).
type ollamaEmbedder struct {
	c     *api.Client
	model string
	calls int
	spent time.Duration
}

func (o *ollamaEmbedder) Name() string                             { return o.model }
func (o *ollamaEmbedder) Identity(context.Context) (string, error) { return o.model, nil }
func (o *ollamaEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	start := time.Now()
	r, err := o.c.Embed(ctx, &api.EmbedRequest{Model: o.model, Input: texts})
	o.calls++
	o.spent += time.Since(start)
	if err != nil {
		return nil, err
	}
	return r.Embeddings, nil
}

func TestLocomoDense(t *testing.T) {
	model := os.Getenv("LOCOMO_EMBED")
	if model == "" {
		t.Fatal("set LOCOMO_EMBED to an embedding model at OLLAMA_HOST")
	}
	// Each weight may end in "n": the vector search adds no candidates.
	weights := []float64{0.5}
	pools := []int{densePool}
	if w := os.Getenv("LOCOMO_WEIGHTS"); w != "" {
		weights, pools = nil, nil
		for _, s := range strings.Split(w, ",") {
			pool := densePool
			if c, ok := strings.CutSuffix(s, "n"); ok {
				s, pool = c, 0
			}
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			weights = append(weights, f)
			pools = append(pools, pool)
		}
	}
	tuning := defaultDense()
	if os.Getenv("LOCOMO_WHOLE") != "" {
		tuning.split = func(text string) []string { return []string{strings.TrimSpace(text)} }
	}
	dir := os.Getenv("LOCOMO_DIR")
	if dir == "" {
		dir = "../../shared/bench/data/locomo-dev"
	}
	ctx := context.Background()
	budgets := []int{1000, 2000, 4000}
	names := map[int]string{4: "single-hop", 1: "multi-hop", 2: "temporal", 3: "open-domain"}
	order := []int{4, 1, 2, 3}
	// tallies[v][category][budget]: v 0 is lexical, v i>0 weights[i-1].
	tallies := make([]map[int]*[4]int, len(weights)+1) // [3] is n
	for i := range tallies {
		tallies[i] = map[int]*[4]int{}
	}
	e := &ollamaEmbedder{c: api.NewClient(envconfig.Host(), http.DefaultClient), model: model}
	var embedTime, queryTime time.Duration
	queries := 0
	convs, _ := filepath.Glob(filepath.Join(dir, "*.qa.json"))
	for _, qaFile := range convs {
		conv := strings.TrimSuffix(qaFile, ".qa.json")
		// LOCOMO_KEEP=DIR keeps each conversation's index (and vectors)
		// there between runs.
		ws := t.TempDir()
		if keep := os.Getenv("LOCOMO_KEEP"); keep != "" {
			ws = filepath.Join(keep, filepath.Base(conv))
		}
		if _, err := os.Stat(filepath.Join(ws, "logs")); err != nil {
			if out, err := exec.Command("cp", "-R", conv+"/.", ws).CombinedOutput(); err != nil {
				t.Fatalf("copy %s: %s", conv, out)
			}
			os.Remove(filepath.Join(ws, "index.db"))
		}
		os.Remove(filepath.Join(ws, "state.db"))
		ix, err := Open(ctx, ws, nil)
		if err != nil {
			t.Fatal(err)
		}
		ix.dense = tuning
		if _, err := ix.Reindex(ctx, ReindexOptions{}); err != nil {
			t.Fatal(err)
		}
		ix.SetEmbedder(e)
		start := time.Now()
		st, err := ix.Embed(ctx, EmbedOptions{})
		if err != nil {
			t.Fatal(err)
		}
		embedTime += time.Since(start)
		t.Logf("%s: embedded %+v in %v", filepath.Base(conv), st, time.Since(start))
		for _, q := range locomoQuestions(t, ws, qaFile, names) {
			ev := q.Evidence
			for v := range tallies {
				if v == 0 {
					ix.SetEmbedder(nil)
				} else {
					ix.SetEmbedder(e)
					ix.dense.weight, ix.dense.pool = weights[v-1], pools[v-1]
				}
				start := time.Now()
				hits, _ := ix.Search(ctx, q.Question, SearchOptions{K: 50, NoSnippet: true})
				if v == 1 {
					queryTime += time.Since(start)
					queries++
				}
				tl := tallies[v][q.Category]
				if tl == nil {
					tl = &[4]int{}
					tallies[v][q.Category] = tl
				}
				tl[3]++
				for i, bud := range budgets {
					if hasAll(locomoWithin(hits, bud), ev) {
						tl[i]++
					}
				}
			}
		}
		ix.Close()
	}
	fmt.Printf("embedding pass: %v in all, %d requests; a search with embeddings: %v on average over %d questions\n",
		embedTime.Round(time.Millisecond), e.calls, (queryTime / time.Duration(max(queries, 1))).Round(time.Microsecond), queries)
	for v, per := range tallies {
		label := "lexical"
		if v > 0 {
			label = fmt.Sprintf("%s, weight %.2f, %d added", model, weights[v-1], pools[v-1])
		}
		fmt.Printf("%s\n", label)
		var all [4]int
		for _, c := range order {
			tl := per[c]
			if tl == nil {
				continue
			}
			n := float64(tl[3])
			fmt.Printf("  %-12s %4d  %.3f / %.3f / %.3f\n", names[c], tl[3], float64(tl[0])/n, float64(tl[1])/n, float64(tl[2])/n)
			for i := range all {
				all[i] += tl[i]
			}
		}
		n := float64(all[3])
		fmt.Printf("  %-12s %4d  %.3f / %.3f / %.3f\n", "overall", all[3], float64(all[0])/n, float64(all[1])/n, float64(all[2])/n)
	}
}
