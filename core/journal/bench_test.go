package journal_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"agent/core/journal"
)

// yearOfEntries is a year of another device's changes, as its journal holds
// them: 5,000 lines, mostly reminders (added, then done), some profile
// keys set again and again, some jobs turned on and off.
func yearOfEntries(b *testing.B, n int) []byte {
	b.Helper()
	var buf bytes.Buffer
	start := time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC)
	for i := range n {
		at := start.Add(time.Duration(i) * 105 * time.Minute)
		e := journal.Entry{HLC: journal.HLC{MS: at.UnixMilli(), Device: "benchdevice"}, Host: "desktop"}
		switch {
		case i%10 < 7:
			r := i / 2
			status, op := "pending", "add"
			if i%2 == 1 {
				status, op = "done", "done"
			}
			e.Kind, e.Key, e.Op = journal.KindReminder, fmt.Sprintf("uid%06d", r), op
			e.Value, _ = json.Marshal(map[string]any{"text": fmt.Sprintf("reminder number %d", r),
				"due_at": at.Add(time.Hour).Format(time.RFC3339), "status": status, "created_by": "user",
				"created_at": at.Format(time.RFC3339), "delivered_at": nil})
		case i%10 < 9:
			e.Kind, e.Key, e.Op = journal.KindProfile, fmt.Sprintf("user.pref.k%02d", i%50), "set"
			e.Value, _ = json.Marshal(fmt.Sprintf("value %d", i))
		default:
			e.Kind, e.Key, e.Op = journal.KindJob, fmt.Sprintf("job%d", i%10), "enable"
			e.Value, _ = json.Marshal(map[string]any{"schedule": "@daily", "zone": "UTC",
				"args": []string{"memory", "reindex"}, "enabled": (i / 10) % 2})
		}
		line, err := json.Marshal(e)
		if err != nil {
			b.Fatal(err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

func benchWorkspace(b *testing.B, journals map[string][]byte) *workspace {
	b.Helper()
	home := b.TempDir()
	ws, _, err := initWorkspace(context.Background(), home)
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(home, journal.Dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	for name, data := range journals {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	return ws
}

// BenchmarkJournalReplayYear: a device that has never seen the other's
// journal reads a year of it (5,000 entries) into its state.db.
func BenchmarkJournalReplayYear(b *testing.B) {
	data := yearOfEntries(b, 5000)
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		ws := benchWorkspace(b, map[string][]byte{"benchdevice.jsonl": data})
		b.StartTimer()
		res, err := journal.Replay(ctx, ws.State, ws.Home, nil)
		b.StopTimer()
		if err != nil || res.Applied+res.Lost != 5000 {
			b.Fatalf("replay: %+v, %v", res, err)
		}
		ws.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(len(data))/1e6, "MB-journal")
}

// BenchmarkJournalNoChange: what every command pays when no journal has
// changed: the outbox check and a stat of each of three devices' journals
// (a year each, already read).
func BenchmarkJournalNoChange(b *testing.B) {
	data := yearOfEntries(b, 5000)
	ctx := context.Background()
	ws := benchWorkspace(b, map[string][]byte{"d1.jsonl": data, "d2.jsonl": data, "d3.jsonl": data})
	defer ws.Close()
	if _, err := journal.Sync(ctx, ws.State, ws.Home, nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := journal.Sync(ctx, ws.State, ws.Home, nil)
		if err != nil || res.Files != 0 {
			b.Fatalf("sync: %+v, %v", res, err)
		}
	}
}
