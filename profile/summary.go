package profile

import (
	"sort"
	"strings"
)

// Summary renders records as the compact profile layer of the prompt, one line
// per group, for example:
//
//	Agent — name: Atlas; role: research assistant
//	User — name: Igor; timezone: Europe/Berlin
//	User preferences — coffee: black, no sugar; units: metric
//
// Fixed keys come in a fixed order and preferences sorted, so the same profile
// always renders the same text. No records gives "".
func Summary(records []Record) string {
	byKey := make(map[string]string, len(records))
	for _, r := range records {
		byKey[r.Key] = r.Value
	}
	var lines []string
	for _, g := range []struct{ scope, title, prefTitle string }{
		{"agent", "Agent", "Agent preferences"},
		{"user", "User", "User preferences"},
	} {
		var fields, prefs, others []string
		for _, k := range knownKeys {
			if v, ok := byKey[k]; ok && scopeOf(k) == g.scope {
				fields = append(fields, strings.TrimPrefix(k, g.scope+".")+": "+v)
			}
		}
		// Keys this version does not know (written by a newer one) still
		// reach the model rather than vanishing.
		for _, k := range sortedKeys(byKey) {
			if scopeOf(k) != g.scope || isKnown(k) {
				continue
			}
			if name, ok := strings.CutPrefix(k, g.scope+".pref."); ok {
				prefs = append(prefs, name+": "+byKey[k])
			} else {
				others = append(others, strings.TrimPrefix(k, g.scope+".")+": "+byKey[k])
			}
		}
		if fields = append(fields, others...); len(fields) > 0 {
			lines = append(lines, g.title+" — "+strings.Join(fields, "; "))
		}
		if len(prefs) > 0 {
			lines = append(lines, g.prefTitle+" — "+strings.Join(prefs, "; "))
		}
	}
	return strings.Join(lines, "\n")
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
