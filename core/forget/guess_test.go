package forget_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agent/core/forget"
	"agent/core/journal"
)

// TestAForgottenPINCannotBeGuessedFromTheRemote: a 4-digit PIN forgotten
// on a device travels in its journal; whoever holds only the synced files
// (the remote) tries every PIN against every pair of hex strings in every
// line, as a salt and a SHA-256 of salt and guess (what travelled before:
// recovered in 8 ms). None matches: the hash is keyed by the workspace's
// forget key, which stays in state.db. The same search with the key finds
// it, so the test would see a hash it could check (issue 45, item 6).
func TestAForgottenPINCannotBeGuessedFromTheRemote(t *testing.T) {
	ctx := context.Background()
	home, db := workspace(t)
	write(t, home, "logs/2026-11-28.md", "# 2026-11-28\n\n- the door code is 4821\n")
	p, err := forget.Find(ctx, home, db, nil, "4821")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(ctx, home, db, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(home, journal.Dir, "*.jsonl"))
	var hexes []string
	lines := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var e journal.Entry
			if json.Unmarshal([]byte(l), &e) != nil || e.Kind != journal.KindForget {
				continue
			}
			lines++
			var v map[string]any
			json.Unmarshal(e.Value, &v)
			for _, x := range v {
				if s, ok := x.(string); ok {
					if _, err := hex.DecodeString(s); err == nil {
						hexes = append(hexes, s)
					}
				}
			}
		}
	}
	if lines != 1 || len(hexes) < 2 {
		t.Fatalf("%d forget lines with hex fields %v: the test proves nothing", lines, hexes)
	}
	found := ""
	for pin := 0; pin < 10000 && found == ""; pin++ {
		guess := fmt.Sprintf("%04d", pin)
		for _, salt := range hexes {
			sb, _ := hex.DecodeString(salt)
			sum := sha256.Sum256(append(sb, guess...))
			for _, h := range hexes {
				if h == hex.EncodeToString(sum[:]) {
					found = guess
				}
			}
		}
	}
	if found != "" {
		t.Errorf("the forgotten PIN %s was recovered from the journal alone", found)
	}
	// This device, which holds the key, still knows the PIN when an
	// import brings it back.
	f, err := forget.LoadForgotten(ctx, db)
	if err != nil || !f.Holds("code 4821") {
		t.Errorf("the device that forgot it no longer recognises it (%v)", err)
	}
}
