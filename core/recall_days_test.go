package core

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The chat's recall reads a message's time words in the user's zone and
// favours the days they name without dropping MEMORY.md's facts (issue 46,
// docs/decisions-index.md "Time words"): "what did I do yesterday" recalls
// yesterday's log though no other word matches it, and "what should I cook
// tonight" recalls the fact "I'm vegetarian" beside tonight's log. At 23:30
// UTC on the 27th it is the 28th in Tokyo, whose yesterday is the 27th.
// Fails on a recall without time words (neither log is recalled) and on
// one that keeps to the days (the fact is dropped).
func TestRecallFavoursDaysInUsersZone(t *testing.T) {
	home := t.TempDir()
	files := map[string]string{
		"MEMORY.md":          "# Memory\n\n## User Facts\n\n- I'm vegetarian, so I cook without meat.\n",
		"logs/2026-11-20.md": "# 2026-11-20\n\n### 19:00\n\nCooked a mushroom risotto.\n",
		"logs/2026-11-26.md": "# 2026-11-26\n\n### 10:00\n\nRepaired the bike's brakes.\n",
		"logs/2026-11-27.md": "# 2026-11-27\n\n### 09:00\n\nFinished reading Piranesi.\n",
		"logs/2026-11-28.md": "# 2026-11-28\n\n### 08:00\n\nBought tomatoes and basil at the market.\n",
	}
	for rel, body := range files {
		writeFileT(t, filepath.Join(home, rel), body)
	}
	mem, err := OpenIndexRecall(context.Background(), home, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	mem.SetNow(func() time.Time { return time.Date(2026, 11, 27, 23, 30, 0, 0, time.UTC).In(tokyo) })
	recalled := func(msg string) string {
		rs, err := mem.Recall(context.Background(), msg, DefaultRecallK)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, r := range rs {
			b.WriteString(r.Path + ": " + r.Text + "\n")
		}
		return b.String()
	}
	if got := recalled("what did I do yesterday?"); !strings.Contains(got, "Piranesi") || strings.Contains(got, "brakes") || strings.Contains(got, "vegetarian") {
		t.Errorf("what did I do yesterday (in Tokyo, the 27th):\n%s", got)
	}
	if got := recalled("what should I cook tonight?"); !strings.Contains(got, "vegetarian") || !strings.Contains(got, "tomatoes") || !strings.Contains(got, "risotto") {
		t.Errorf("what should I cook tonight: want the fact, tonight's log and the risotto:\n%s", got)
	}
}
