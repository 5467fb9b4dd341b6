// Command digestbench writes extractive digests — no model — into
// workspaces, through the real distillation path: a stand-in model picks
// the most informative lines of each part of the prompt and cites them, and
// core/distill checks every citation and writes the digests as it would a
// model's. scripts/locomo-digests.sh uses it to measure recall with and
// without digests reproducibly.
//
//	go run ./scripts/digestbench [-kind week] [-per-part 5] WORKSPACE...
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"agent/core/distill"
)

func main() {
	kind := flag.String("kind", distill.Week, "week, month, or both (\"\")")
	perPart := flag.Int("per-part", 5, "lines picked from each part of the prompt")
	flag.Parse()
	ctx := context.Background()
	for _, ws := range flag.Args() {
		res, err := distill.Run(ctx, distill.Options{
			Home: ws, Today: time.Now(), Kind: *kind, Model: extractive{perPart: *perPart},
		})
		if err != nil {
			fmt.Fprintf(os.Stderr, "digestbench: %s: %v\n", ws, err)
			os.Exit(1)
		}
		kept, dropped, written := 0, 0, 0
		for _, r := range res {
			kept += r.Items.Kept
			dropped += r.Items.DroppedTotal()
			written += r.Written
		}
		fmt.Fprintf(os.Stderr, "digestbench: %s: %d digests, %d items kept, %d dropped, %d written\n", ws, len(res), kept, dropped, written)
	}
}

// extractive answers a distillation prompt with lines of the prompt itself:
// the perPart lines with the most distinct words of four letters or more,
// in their order, each citing its own line and quoting its start.
type extractive struct{ perPart int }

type cand struct {
	text, source string
	score, order int
}

func (e extractive) Generate(_ context.Context, req distill.Request) (distill.Reply, error) {
	var cands []cand
	path := ""
	for _, l := range strings.Split(req.Prompt, "\n") {
		if strings.HasPrefix(l, "=== ") && strings.HasSuffix(l, " ===") {
			path = strings.TrimSuffix(strings.TrimPrefix(l, "=== "), " ===")
			continue
		}
		num, text, ok := strings.Cut(l, "| ")
		n, err := strconv.Atoi(num)
		if !ok || err != nil || path == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if r := utf8.RuneCountInString(text); r < 40 || r > 280 {
			continue
		}
		cands = append(cands, cand{text: text, source: fmt.Sprintf("%s:%d", path, n), score: words(text), order: len(cands)})
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	cands = cands[:min(len(cands), e.perPart)]
	sort.Slice(cands, func(i, j int) bool { return cands[i].order < cands[j].order })
	type item struct {
		Text   string `json:"text"`
		Source string `json:"source"`
		Quote  string `json:"quote"`
	}
	out := struct {
		Items []item `json:"items"`
		Facts []item `json:"facts"`
	}{Items: []item{}, Facts: []item{}}
	for _, c := range cands {
		out.Items = append(out.Items, item{Text: c.text, Source: c.source, Quote: c.text})
	}
	b, err := json.Marshal(out)
	return distill.Reply{Content: string(b)}, err
}

func words(s string) int {
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if utf8.RuneCountInString(w) >= 4 {
			seen[w] = true
		}
	}
	return len(seen)
}
