package secrets

import "strings"

// findKeyBlocks finds private key blocks: a BEGIN line, a body of base64
// (and the armour's "Name: value" header lines), and the END line with the
// same label. A block is replaced whole or not at all: a note that only
// names the header, or quotes it with "…" for a body, or a paste cut
// before its END line, is left exactly as written — what follows the
// header there is the user's words, not key material.
func findKeyBlocks(s string, add func(Finding)) {
	const begin = "-----BEGIN "
	noEnd := map[string]bool{} // labels whose END line is nowhere after: not searched again
	for from := 0; ; {
		i := strings.Index(s[from:], begin)
		if i < 0 {
			return
		}
		start := from + i
		from = start + len(begin)
		rest := s[from:]
		j := strings.Index(rest, "-----")
		if j < 0 || j > 64 {
			continue
		}
		label := rest[:j]
		if !strings.HasSuffix(label, "PRIVATE KEY") && !strings.HasSuffix(label, "PRIVATE KEY BLOCK") {
			continue
		}
		bodyStart := from + j + 5
		if noEnd[label] {
			continue
		}
		end := "-----END " + label + "-----"
		k := strings.Index(s[bodyStart:], end)
		if k < 0 {
			noEnd[label] = true
			continue
		}
		if !keyBody(s[bodyStart : bodyStart+k]) {
			continue
		}
		add(Finding{Kind: "private key", Start: start, End: bodyStart + k + len(end)})
		from = bodyStart + k + len(end)
	}
}

// keyBody tells key material from prose: its lines (split at newlines and
// at the two characters \n, as a key is written inside a JSON string) are
// base64 — long runs, no words — or armour headers ("Proc-Type: 4,ENCRYPTED").
// At least 32 base64 bytes, in runs of 16 on average: prose that happens
// to sit between a BEGIN and an END line ("and ends with") has short runs.
func keyBody(body string) bool {
	body = strings.ReplaceAll(body, `\n`, "\n")
	total, runs := 0, 0
	for line := range strings.SplitSeq(body, "\n") {
		line = strings.TrimSpace(strings.Trim(strings.TrimSpace(line), `",+`))
		if line == "" {
			continue
		}
		if name, _, ok := strings.Cut(line, ": "); ok && !strings.ContainsAny(name, " \t") {
			continue // an armour header
		}
		for f := range strings.FieldsSeq(line) {
			if strings.IndexFunc(f, func(r rune) bool {
				return !(r == '+' || r == '/' || r == '=' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
			}) >= 0 {
				return false
			}
			total += len(f)
			runs++
		}
	}
	return total >= 32 && total >= 16*runs
}
