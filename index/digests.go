package index

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// CitedRE finds the citations a digest item ends with,
// "(logs/2026-11-20.md:14-22)": the path, the first line and the last.
var CitedRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\((logs/[^():\s]+\.md):(\d+)(?:-(\d+))?\)`) })

// dropCitedTwice removes the digest items (digests/) whose every cited log
// passage overlaps a log chunk among the hits: the same passage twice would
// spend a reader's budget (the context, a screen) for nothing, and the log
// keeps more around it. An item whose source is not among the hits stays,
// standing in for it.
func dropCitedTwice(hits []Hit) []Hit {
	type span struct{ start, end int }
	logs := map[string][]span{}
	for _, h := range hits {
		if !strings.HasPrefix(h.Path, digestsDir+"/") {
			logs[h.Path] = append(logs[h.Path], span{h.StartLine, h.EndLine})
		}
	}
	covered := func(text string) bool {
		cites := CitedRE().FindAllStringSubmatch(text, -1)
		if len(cites) == 0 {
			return false
		}
		for _, c := range cites {
			a, _ := strconv.Atoi(c[2])
			b := a
			if c[3] != "" {
				b, _ = strconv.Atoi(c[3])
			}
			hit := false
			for _, s := range logs[c[1]] {
				if a <= s.end && b >= s.start {
					hit = true
					break
				}
			}
			if !hit {
				return false
			}
		}
		return true
	}
	out := hits[:0]
	for _, h := range hits {
		if strings.HasPrefix(h.Path, digestsDir+"/") && covered(h.Text) {
			continue
		}
		out = append(out, h)
	}
	return out
}
