package devsync

import "strings"

// unit is one entry of a daily log ("### HH:MM …" and its body, trailing
// blank lines dropped) or one line of a journal.
type unit struct {
	text string
	key  string // what orders it in time: the heading's HH:MM, or ""
}

// splitUnits cuts lines into units: at each line for which starts is true,
// or at every line when starts is nil. The lines before the first start
// are returned apart (a log's "# date" title).
func splitUnits(lines []string, starts func(string) bool) []unit {
	var out []unit
	for _, l := range lines {
		if starts == nil {
			out = append(out, unit{text: l})
			continue
		}
		if starts(l) || len(out) == 0 {
			out = append(out, unit{text: l, key: entryTime(l)})
			continue
		}
		out[len(out)-1].text += "\n" + l
	}
	for i := range out {
		out[i].text = strings.TrimRight(out[i].text, "\n")
	}
	return out
}

func isEntryHeading(l string) bool { return strings.HasPrefix(l, "### ") }

// entryTime is the "HH:MM" a log entry's heading starts with, or "".
func entryTime(heading string) string {
	h, ok := strings.CutPrefix(heading, "### ")
	if !ok || len(h) < 5 || h[2] != ':' {
		return ""
	}
	return h[:5]
}

// mergeLog merges daily logs entry by entry: the title part line by line,
// then every entry either side holds, minus those one side removed and
// the other left as they were, interleaved by their time. An entry changed
// on both sides is kept in both versions (they are different entries now).
func mergeLog(base, ours, theirs []string, noBase bool) ([]string, int) {
	head := func(lines []string) ([]string, []string) {
		for i, l := range lines {
			if isEntryHeading(l) {
				return lines[:i], lines[i:]
			}
		}
		return lines, nil
	}
	bh, be := head(base)
	oh, oe := head(ours)
	th, te := head(theirs)
	if noBase {
		bh = common(oh, th)
	}
	title, conflicts := mergeLines(trimBlank(bh), trimBlank(oh), trimBlank(th))
	var b []unit
	if !noBase {
		b = splitUnits(be, isEntryHeading)
	}
	entries := mergeUnits(b, splitUnits(oe, isEntryHeading), splitUnits(te, isEntryHeading), byTime)
	out := trimBlank(title)
	for _, e := range entries {
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, e)
	}
	return out, conflicts
}

func trimBlank(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// mergeUnits merges units three-way by their text: a unit kept by one side
// and removed by the other is gone only if it was in the base (a removal),
// a unit new on either side is kept. Ours come in their order; theirs'
// new units are placed by less (or at the end when less is nil).
func mergeUnits(base, ours, theirs []unit, less func(a, b unit) bool) []string {
	count := func(us []unit) map[string]int {
		m := map[string]int{}
		for _, u := range us {
			m[u.text]++
		}
		return m
	}
	bc, oc, tc := count(base), count(ours), count(theirs)
	want := func(text string) int {
		b, o, t := bc[text], oc[text], tc[text]
		switch {
		case o == b:
			return t
		case t == b:
			return o
		default:
			return max(o, t)
		}
	}
	// Ours first, as many of each as the merge keeps.
	used := map[string]int{}
	var mine []unit
	for _, u := range ours {
		if used[u.text] < want(u.text) {
			used[u.text]++
			mine = append(mine, u)
		}
	}
	var new []unit
	for _, u := range theirs {
		if used[u.text] < want(u.text) {
			used[u.text]++
			new = append(new, u)
		}
	}
	// Units without a time take the time of the one before them, so a
	// side's own order is never changed.
	fill := func(us []unit) {
		last := ""
		for i := range us {
			if us[i].key == "" {
				us[i].key = last
			}
			last = us[i].key
		}
	}
	fill(mine)
	fill(new)
	var out []string
	i, j := 0, 0
	for i < len(mine) || j < len(new) {
		if j == len(new) || (i < len(mine) && (less == nil || !less(new[j], mine[i]))) {
			out = append(out, mine[i].text)
			i++
		} else {
			out = append(out, new[j].text)
			j++
		}
	}
	return out
}

func byTime(a, b unit) bool { return a.key < b.key }
