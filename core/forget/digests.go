package forget

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"agent/index"
)

// Marks put at the start of a digest line's text whose source a forget
// changed or removed: the line was derived from words that are gone, and
// a person (or the next distill) should know it.
const (
	markChanged = "[source changed by agent forget] "
	markRemoved = "[source deleted by agent forget] "
)

// lineChange is what an edit did to a log's lines: changed says line n was
// rewritten in place; newLine maps an old line to its new number, 0 when
// it was removed. Either may be nil.
type lineChange struct {
	changed map[int]bool
	newLine func(n int) int
}

// markDigests marks, in every digest, the lines citing a log line the plan
// changes or removes, and renumbers citations of lines that moved. The
// digests are derived: this keeps each line honest about its source
// without asking the model to distill again.
func (p *Plan) markDigests(home string) {
	logs := map[string]lineChange{}
	for _, e := range p.files {
		if strings.HasPrefix(e.rel, "logs/") {
			lc := logs[e.rel]
			if lc.changed == nil {
				lc.changed = map[int]bool{}
			}
			for _, n := range e.changed {
				lc.changed[n] = true
			}
			lc.newLine = e.newLine
			logs[e.rel] = lc
		}
	}
	if len(logs) == 0 {
		return
	}
	ents, _ := os.ReadDir(filepath.Join(home, "digests"))
	for _, en := range ents {
		if en.IsDir() || !strings.HasSuffix(en.Name(), ".md") {
			continue
		}
		rel := "digests/" + en.Name()
		idx := -1
		for i, e := range p.files {
			if e.rel == rel {
				idx = i
			}
		}
		var text string
		if idx >= 0 {
			text = string(p.files[idx].new)
		} else {
			b, err := os.ReadFile(filepath.Join(home, rel))
			if err != nil {
				continue
			}
			text = string(b)
		}
		var out strings.Builder
		marked := 0
		for i, line := range splitKeep(text) {
			nl, note := markLine(line, logs)
			out.WriteString(nl)
			if note != "" {
				marked++
				p.Places = append(p.Places, Place{Kind: "file", Path: rel, Line: i + 1, Count: 0, Note: note})
			}
		}
		if out.String() == text {
			continue
		}
		if idx >= 0 {
			p.files[idx].new = []byte(out.String())
		} else {
			old := []byte(text)
			p.files = append(p.files, fileEdit{rel: rel, to: rel, old: old, new: []byte(out.String())})
		}
	}
}

// markLine renumbers a digest line's citations and marks it when a line it
// cites was changed or removed; note says which.
func markLine(line string, logs map[string]lineChange) (string, string) {
	changed, removed := false, false
	nl := index.CitedRE().ReplaceAllStringFunc(line, func(c string) string {
		m := index.CitedRE().FindStringSubmatch(c)
		lc, ok := logs[m[1]]
		if !ok {
			return c
		}
		from, _ := strconv.Atoi(m[2])
		to := from
		if m[3] != "" {
			to, _ = strconv.Atoi(m[3])
		}
		for n := from; n <= to; n++ {
			changed = changed || lc.changed[n]
		}
		if lc.newLine == nil {
			return c
		}
		nf, nt := 0, 0
		for n := from; n <= to; n++ {
			if k := lc.newLine(n); k > 0 {
				if nf == 0 {
					nf = k
				}
				nt = k
			} else {
				removed = true
			}
		}
		if nf == 0 {
			return c // every cited line is gone: the mark says so
		}
		if nt == nf {
			return "(" + m[1] + ":" + strconv.Itoa(nf) + ")"
		}
		return "(" + m[1] + ":" + strconv.Itoa(nf) + "-" + strconv.Itoa(nt) + ")"
	})
	if !changed && !removed || !strings.HasPrefix(nl, "- ") {
		return nl, ""
	}
	mark, note := markChanged, "digest line derived from a changed log line: marked"
	if removed {
		mark, note = markRemoved, "digest line derived from a deleted log line: marked"
	}
	if strings.HasPrefix(nl[2:], mark) {
		return nl, ""
	}
	return "- " + mark + nl[2:], note
}
