// Package secrets finds credentials in text by the shape of their value —
// the keys and tokens of the common providers, private key blocks,
// password= and bearer credentials, JWTs — so that what is written to
// memory (MEMORY.md, the daily logs, state.db, and from them the index)
// holds a marker naming the kind instead: "[secret: github token]".
//
// Only value shapes are matched, never words: a false positive damages the
// user's notes for good, so every pattern wants a provider's prefix or a
// key=value form whose value looks made by a machine.
package secrets

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Finding is one secret: its kind and the bytes of s it covers (the value
// only, for a key=value form).
type Finding struct {
	Kind       string
	Start, End int
}

// Marker is what replaces a secret of kind.
func Marker(kind string) string { return "[secret: " + kind + "]" }

// pattern finds one kind. Every match holds one of the lowercase literals
// in hint, checked first so that text without them costs a scan each; group is the
// submatch that is the value (0: the whole match); machine asks that the
// value look generated (see machineMade).
type pattern struct {
	kind    string
	hint    []string
	re      *regexp.Regexp
	group   int
	machine bool
}

// patterns, most specific first: an Anthropic key also starts like an
// OpenAI one, and an earlier finding wins where two overlap. Compiled on
// first use, not at program start: every command imports this package
// through memory, few of them write memory.
var patterns = sync.OnceValue(func() []pattern {
	return []pattern{
		{kind: "private key", hint: []string{"-----begin "}, re: regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s:,-]*)`)},
		{kind: "aws access key", hint: []string{"akia", "asia", "agpa", "aida", "aroa"}, re: regexp.MustCompile(`(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b`)},
		{kind: "github token", hint: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, re: regexp.MustCompile(`gh[pousr]_[A-Za-z0-9]{36,255}\b`)},
		{kind: "github token", hint: []string{"github_pat_"}, re: regexp.MustCompile(`github_pat_[A-Za-z0-9_]{22,255}\b`)},
		{kind: "gitlab token", hint: []string{"glpat-"}, re: regexp.MustCompile(`glpat-[A-Za-z0-9_-]{20,}`)},
		{kind: "anthropic key", hint: []string{"sk-ant-"}, re: regexp.MustCompile(`sk-ant-[A-Za-z0-9_-]{20,}`)},
		{kind: "openai key", hint: []string{"sk-"}, re: regexp.MustCompile(`sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`), machine: true},
		{kind: "slack token", hint: []string{"xox"}, re: regexp.MustCompile(`xox[abposre]-[A-Za-z0-9-]{10,}`), machine: true},
		{kind: "slack webhook", hint: []string{"hooks.slack.com/"}, re: regexp.MustCompile(`https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}`)},
		{kind: "google api key", hint: []string{"aiza"}, re: regexp.MustCompile(`AIza[0-9A-Za-z_-]{35}\b`)},
		{kind: "stripe key", hint: []string{"_live_"}, re: regexp.MustCompile(`[spr]k_live_[0-9A-Za-z]{16,}\b`)},
		{kind: "stripe key", hint: []string{"_test_"}, re: regexp.MustCompile(`[sr]k_test_[0-9A-Za-z]{16,}\b`)},
		{kind: "jwt", hint: []string{"eyj"}, re: regexp.MustCompile(`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
		{kind: "bearer token", hint: []string{"bearer"}, re: regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)`), group: 1, machine: true},
		{kind: "basic credentials", hint: []string{"authorization:"}, re: regexp.MustCompile(`(?i)\bauthorization:\s*basic\s+([A-Za-z0-9+/]{8,}=*)`), group: 1},
		// key=value (no blanks around "=": an assignment in prose or a script,
		// "$token = Get-Secret …", is not a value) and "key": "value", where the
		// key names a password or a credential as a word of its own
		// (PublicKeyToken= is not one); the value must look machine-made and not
		// be a placeholder ($VAR, %VAR%, {{x}}, <x>, ^PASS^).
		{kind: "password", hint: []string{"password=", "passwd=", "passphrase=", "password\"", "passwd\"", "passphrase\""}, re: regexp.MustCompile(`(?i)\b(?:password|passwd|passphrase)(?:=|"\s*:\s*")([^\s"'<>$%{}^\[]{4,})`), group: 1, machine: true},
		{kind: "password", hint: []string{"pwd=", "pwd\""}, re: regexp.MustCompile(`(?i)\bpwd(?:=|"\s*:\s*")([^\s"'<>$%{}^\[]{4,})`), group: 1, machine: true},
		{kind: "credential", hint: []string{"secret=", "token=", "key=", "secret\"", "token\"", "key\""}, re: regexp.MustCompile(`(?i)\b(?:[a-z0-9]+[_-])*(?:secret|token|api_?key|access_?key|private_?key|client_?secret)(?:=|"\s*:\s*")([^\s"'<>$%{}^\[]{4,})`), group: 1, machine: true},
	}
})

// machineMade tells a generated value from a word: at least six characters
// with a digit or a symbol in them, or twelve and more (a passphrase).
// "patience" is a word; "hunter2" and "wJalrXUtnFEMI/K7MDENG" are not.
func machineMade(v string) bool {
	if len(v) == 0 || strings.Count(v, v[:1]) == len(v) { // ****, xxxxxx
		return false
	}
	if len(v) >= 12 {
		return true
	}
	if len(v) < 6 {
		return false
	}
	return strings.ContainsFunc(v, func(r rune) bool {
		return r >= '0' && r <= '9' || strings.ContainsRune("#&*+-/=@_|~", r)
	})
}

// Find returns the secrets in s, in order, none overlapping.
func Find(s string) []Finding {
	lower := strings.ToLower(s)
	var out []Finding
	for _, p := range patterns() {
		if !slices.ContainsFunc(p.hint, func(h string) bool { return strings.Contains(lower, h) }) {
			continue
		}
		for _, m := range p.re.FindAllStringSubmatchIndex(s, -1) {
			start, end := m[2*p.group], m[2*p.group+1]
			if start < 0 || (m[0] > 0 && isWordByte(s[m[0]-1])) {
				continue
			}
			if p.group > 0 { // a sentence's punctuation after the value is not part of it
				end = start + len(strings.TrimRight(s[start:end], ".,;:!?)"))
			}
			if strings.HasPrefix(s[start:], "[secret: ") || (p.machine && !machineMade(s[start:end])) {
				continue
			}
			if slices.ContainsFunc(out, func(f Finding) bool { return start < f.End && f.Start < end }) {
				continue
			}
			out = append(out, Finding{Kind: p.kind, Start: start, End: end})
		}
	}
	slices.SortFunc(out, func(a, b Finding) int { return a.Start - b.Start })
	return out
}

// isWordByte is \b's idea of a word character. The patterns that start with
// a literal leave the boundary before it to Find: a leading \b would cost
// Go's regexp its fast scan for the literal (~20× slower on 32 KB).
func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// Redact returns s with every secret replaced by its marker, and the kinds
// replaced, in order (nil when s had none; s itself is then returned).
func Redact(s string) (string, []string) {
	found := Find(s)
	if len(found) == 0 {
		return s, nil
	}
	var b strings.Builder
	kinds := make([]string, 0, len(found))
	last := 0
	for _, f := range found {
		b.WriteString(s[last:f.Start])
		b.WriteString(Marker(f.Kind))
		kinds = append(kinds, f.Kind)
		last = f.End
	}
	b.WriteString(s[last:])
	return b.String(), kinds
}
