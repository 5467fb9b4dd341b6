package secrets

import (
	"strings"
	"testing"
)

// FuzzRedact: on any text, Find's findings lie inside it, in order, none
// overlapping; Redact changes only those bytes, each into its marker, and
// a second Redact changes nothing (no panic on any input: the scans index
// around quotes, keys and URLs).
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		"password=hunter2", `{"password": "Tr0ub4dor&3x"}`, "postgres://a:Tr0ub4dor3@h/db", "curl -u a:Tr0ub4dor3 x",
		"machine h\n  password Tr0ub4dor3\n", "Authorization: Basic YWRtaW46VHIwdWI0ZG9yJjM=", "Bearer 9f86d081884c7d659a2feaa0c55ad015",
		"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyu\n-----END RSA PRIVATE KEY-----", `"PWD="+dir`,
		"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", "token=\"", "key: '", "a://:@", "=", "password", "--password ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		found := Find(s)
		last := 0
		for _, x := range found {
			if x.Start < last || x.End <= x.Start || x.End > len(s) || x.Kind == "" {
				t.Fatalf("Find(%q): bad finding %+v after %d", s, x, last)
			}
			last = x.End
		}
		got, kinds := Redact(s)
		if len(kinds) != len(found) {
			t.Fatalf("Redact(%q): %d kinds, %d findings", s, len(kinds), len(found))
		}
		var want strings.Builder
		last = 0
		for _, x := range found {
			want.WriteString(s[last:x.Start] + Marker(x.Kind))
			last = x.End
		}
		want.WriteString(s[last:])
		if got != want.String() {
			t.Fatalf("Redact(%q) = %q, want %q", s, got, want.String())
		}
		if again, k := Redact(got); again != got || len(k) != 0 {
			t.Fatalf("Redact is not idempotent on %q: %q %q", got, again, k)
		}
	})
}
