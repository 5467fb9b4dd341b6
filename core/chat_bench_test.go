package core

import (
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

	"agent/core/ollamatest"
)

// BenchmarkTurnOverhead measures everything a chat turn costs except the
// model's own time: the fake Ollama answers instantly. The workspace is
// AGENT_BENCH_WS when set (make bench points it at the 10,000-file ws-M,
// copied so the turns' log entries do not touch the original), else a
// generated one of 2,000 small logs. Reports the median as p50-ms.
func BenchmarkTurnOverhead(b *testing.B) {
	home := b.TempDir()
	if src := os.Getenv("AGENT_BENCH_WS"); src != "" {
		if out, err := exec.Command("cp", "-R", src+"/.", home).CombinedOutput(); err != nil {
			b.Fatalf("copy %s: %v: %s", src, err, out)
		}
	} else {
		// Varied text: each note draws words from a small vocabulary, so a
		// query matches some notes, not all.
		words := strings.Fields("list files sort size directory copy move remove archive compress network port " +
			"process memory disk user group permission link search find pattern replace date time zone backup " +
			"restore server client request response header cookie cache queue thread lock signal kill")
		rng := rand.New(rand.NewPCG(1, 2))
		for i := 0; i < 2000; i++ {
			day := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i).Format("2006-01-02")
			var text strings.Builder
			for j := 0; j < 60; j++ {
				text.WriteString(words[rng.IntN(len(words))] + " ")
			}
			body := fmt.Sprintf("# %s\n\n## Notes %d\n\n%s\n", day, i, text.String())
			if err := os.MkdirAll(filepath.Join(home, "logs"), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, "logs", day+".md"), []byte(body), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	ctx := context.Background()
	ws, _, err := Init(ctx, home)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	srv := ollamatest.New(b)
	srv.Default(ollamatest.Text("ok"))
	b.Setenv("OLLAMA_HOST", srv.Host())
	// "walk": every turn checks the files with a stat walk (a one-shot
	// chat). "monitor": the REPL's way, an inotify monitor says whether
	// anything changed.
	for _, mode := range []string{"walk", "monitor"} {
		b.Run(mode, func(b *testing.B) {
			mem, err := OpenIndexRecall(ctx, home, func(string) {})
			if err != nil {
				b.Fatal(err)
			}
			defer mem.Close()
			if mode == "monitor" {
				if err := mem.WatchFiles(home); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := mem.ix.Refresh(ctx); err != nil {
				b.Fatal(err)
			}
			o, err := NewOllama(nil)
			if err != nil {
				b.Fatal(err)
			}
			chat := NewChat(ws, o, "llama3.2", mem)
			chat.NoLog = true
			s, err := chat.Sessions.Create(ctx, "", chat.ModelName)
			if err != nil {
				b.Fatal(err)
			}
			durations := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				if _, err := chat.Turn(ctx, &s, "how do I list files sorted by size", nil); err != nil {
					b.Fatal(err)
				}
				durations = append(durations, time.Since(start))
			}
			b.StopTimer()
			sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
			b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms")
		})
	}
}
