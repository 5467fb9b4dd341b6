package mcpserve_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"agent/core"
	"agent/core/mcpserve"
	"agent/index"
)

// benchWorkspace is AGENT_BENCH_WS (make bench: a copy of ws-M, initialised
// and indexed; searches only read it) or a generated one of 2,000 logs.
func benchWorkspace(b *testing.B) string {
	if ws := os.Getenv("AGENT_BENCH_WS"); ws != "" {
		return ws
	}
	home := filepath.Join(b.TempDir(), "ws")
	words := strings.Fields("list files sort size directory copy move remove archive compress network port " +
		"process memory disk user group permission link search find pattern replace date time zone backup")
	rng := rand.New(rand.NewPCG(4, 7))
	if err := os.MkdirAll(filepath.Join(home, "logs"), 0o700); err != nil {
		b.Fatal(err)
	}
	for i := range 2000 {
		day := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i).Format("2006-01-02")
		var t strings.Builder
		for range 60 {
			t.WriteString(words[rng.IntN(len(words))] + " ")
		}
		if err := os.WriteFile(filepath.Join(home, "logs", day+".md"), []byte("# "+day+"\n\n## Notes\n\n"+t.String()+"\n"), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	ws, _, err := core.Init(context.Background(), home)
	if err != nil {
		b.Fatal(err)
	}
	ws.Close()
	return home
}

// benchQueries are AGENT_BENCH_QUERIES's lines (make bench: the shared
// queries.txt), else a few fixed ones.
func benchQueries(b *testing.B) []string {
	f := os.Getenv("AGENT_BENCH_QUERIES")
	if f == "" {
		return []string{"list files sorted by size", "backup restore server", "network port process", "time zone date"}
	}
	fh, err := os.Open(f)
	if err != nil {
		b.Fatal(err)
	}
	defer fh.Close()
	var qs []string
	for sc := bufio.NewScanner(fh); sc.Scan(); {
		if q := strings.TrimSpace(sc.Text()); q != "" {
			qs = append(qs, q)
		}
	}
	return qs
}

func p50(b *testing.B, d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
}

// BenchmarkServeSearch: a search as `agent memory search` makes it in
// process (index.Search, fresh, snippets), as the chat's recall makes it
// (what memory_search runs, with the files watched as the server watches
// them), and through the server, from the client's
// call to its result: in-process (the server's own cost) and, with
// AGENT_BIN, over stdio to the real binary (what a coding agent waits).
// Each is reported as its median, NAME-p50-ms, and the server's as the
// median of its difference from recall's on the same query.
func BenchmarkServeSearch(b *testing.B) {
	ctx := context.Background()
	home := benchWorkspace(b)
	qs := benchQueries(b)
	ws, err := core.Open(ctx, home)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	recall, err := core.OpenIndexRecall(ctx, home, func(string) {})
	if err != nil {
		b.Fatal(err)
	}
	defer recall.Close()
	// As agent mcp serve runs it: the files watched, not walked; the first
	// refresh builds what is missing.
	if err := recall.WatchFiles(home); err != nil {
		b.Fatal(err)
	}
	recall.Recall(ctx, "warm", 1)
	search := map[string]func(q string) error{
		"memory-search": nil, "recall": nil, "server": nil,
	}
	ix, err := index.Open(ctx, home, func(string) {})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	search["memory-search"] = func(q string) error {
		_, err := ix.Search(ctx, q, index.SearchOptions{K: mcpserve.DefaultK, Fresh: true})
		if err == index.ErrNotFound || err == index.ErrNoTerms {
			return nil
		}
		return err
	}
	search["recall"] = func(q string) error { _, err := recall.Recall(ctx, q, mcpserve.DefaultK); return err }
	srv := mcpserve.New(mcpserve.Options{Home: home, State: ws.State, Recall: recall})
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	viaClient := func(cs *sdk.ClientSession) func(string) error {
		return func(q string) error {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: mcpserve.ToolSearch, Arguments: map[string]any{"query": q}})
			if err == nil && res.IsError {
				err = fmt.Errorf("%q: %v", q, res.Content[0].(*sdk.TextContent).Text)
			}
			return err
		}
	}
	search["server"] = viaClient(cs)
	names := []string{"memory-search", "recall", "server"}
	if bin := os.Getenv("AGENT_BIN"); bin != "" {
		cmd := exec.Command(bin, "--home", home, "mcp", "serve")
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		search["stdio"] = viaClient(cs)
		names = append(names, "stdio")
	}
	// Interleaved, query by query, so a loaded machine's drift falls on
	// every way alike; the server's own cost is the paired difference.
	d := map[string][]time.Duration{}
	for i := 0; b.Loop(); i++ {
		q := qs[i%len(qs)]
		for _, name := range names {
			start := time.Now()
			if err := search[name](q); err != nil {
				b.Fatal(err)
			}
			d[name] = append(d[name], time.Since(start))
		}
		for _, via := range names[2:] {
			d[via+"-minus-recall"] = append(d[via+"-minus-recall"], d[via][i]-d["recall"][i])
		}
	}
	for name, ds := range d {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, name+"-p50-ms")
	}
}

// BenchmarkServeStartup: AGENT_BIN's `agent mcp serve` from the fork to
// the answer of initialize and tools/list (what a client waits before its
// first call), and the process's end after the client closes.
func BenchmarkServeStartup(b *testing.B) {
	bin := os.Getenv("AGENT_BIN")
	if bin == "" {
		b.Skip("AGENT_BIN (the built agent) is not set")
	}
	home := benchWorkspace(b)
	ctx := context.Background()
	d := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		cmd := exec.Command(bin, "--home", home, "mcp", "serve")
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := cs.ListTools(ctx, nil); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(start))
		cs.Close()
	}
	p50(b, d)
}
