package distill

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/google/renameio/v2"
)

// Item is one checked line of a digest.
type Item struct {
	Text   string   `json:"text"`
	Source Citation `json:"-"`
	Cite   string   `json:"source"`
}

// Default budgets per tier, in estimated tokens (CharsPerToken): the
// design's soft caps. A digest over its budget is cut with a visible note.
const (
	DefaultRecentTokens = 3000 // recent context: the latest weekly digest's items
	DefaultWeekTokens   = 2000
	DefaultMonthTokens  = 2000
)

// title is a digest's first line.
func title(p Period) string {
	if p.Kind == Month {
		return fmt.Sprintf("# Month %s (%s to %s)", p.Key, p.Date(), p.Last())
	}
	return fmt.Sprintf("# Week %s (%s to %s)", p.Key, p.Date(), p.Last())
}

// render writes a digest: a title, a note on where it came from, then one
// bullet per item with its citation, within budgetTokens; the items past the
// budget are left out with a visible note saying how many. It returns the
// text and how many items were cut.
func render(p Period, srcs []Source, items []Item, budgetTokens int) (string, int) {
	var b strings.Builder
	b.WriteString(title(p) + "\n\n")
	plural := "s"
	if len(srcs) == 1 {
		plural = ""
	}
	fmt.Fprintf(&b, "Distilled by agent from %d daily log%s; every line cites the log lines it came from.\n\n", len(srcs), plural)
	if len(items) == 0 {
		b.WriteString("Nothing to note.\n")
		return b.String(), 0
	}
	budget := budgetTokens * CharsPerToken
	for i, it := range items {
		line := fmt.Sprintf("- %s (%s)\n", it.Text, it.Cite)
		if b.Len()+len(line) > budget && i > 0 {
			cut := len(items) - i
			fmt.Fprintf(&b, "\n_Cut: %d more items over this digest's budget of %d tokens._\n", cut, budgetTokens)
			return b.String(), cut
		}
		b.WriteString(line)
	}
	return b.String(), 0
}

// mergeItems joins the items of every chunk: duplicates (same text) once,
// ordered by where they come from, so a digest reads in time order and the
// same items always give the same file.
func mergeItems(items []Item) []Item {
	seen := map[string]bool{}
	var out []Item
	for _, it := range items {
		k := normalise(it.Text)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, it)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Source, out[j].Source
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Start < b.Start
	})
	return out
}

// writeDigest replaces the digest atomically (temp file, fsync, rename): a
// killed run leaves the old file or the new one, never half of one.
func writeDigest(home string, p Period, text string) error {
	dir := filepath.Join(home, DigestsDir)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("write %s: %w", p.Path(), err)
	}
	if err := renameio.WriteFile(filepath.Join(home, p.Path()), []byte(text), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", p.Path(), err)
	}
	// The rename is durable once the directory entry is on disk.
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", DigestsDir, err)
	}
	defer d.Close()
	return d.Sync()
}

// Distilled reports whether the period's digest exists.
func Distilled(home string, p Period) (bool, error) {
	_, err := os.Stat(filepath.Join(home, p.Path()))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// bulletRE reads a digest bullet back: its text and its citation.
var bulletRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^- (.+) \((logs/\d{4}-\d{2}-\d{2}\.md:\d+(?:-\d+)?)\)$`)
})
