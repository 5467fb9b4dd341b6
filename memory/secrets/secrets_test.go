package secrets

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each kind, as the provider issues it (made-up values of the real shape),
// inside a sentence: the value is replaced by the marker, the words around
// it stay.
func TestRedactKinds(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"my key is AKIAIOSFODNN7EXAMPLE ok", "my key is [secret: aws access key] ok"},
		{"token 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 here", "token [secret: github token] here"},
		{"pat github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX1234 end", "pat [secret: github token] end"},
		{"openai sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z0AbC end", "openai [secret: openai key] end"},
		{"openai sk-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z0AbCdEf7g end", "openai [secret: openai key] end"},
		{"claude sk-ant-api03-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z0AbC-_xyz end", "claude [secret: anthropic key] end"},
		{"slack xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx end", "slack [secret: slack token] end"},
		{"maps AIzaSyA-1234567890abcdefghijklmnopqrstu end", "maps [secret: google api key] end"},
		{"stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc end", "stripe [secret: stripe key] end"},
		{"gitlab glpat-AbCdEf1234567890XyZ_ end", "gitlab [secret: gitlab token] end"},
		{"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U end", "jwt [secret: jwt] end"},
		{"db password=hunter2 please", "db password=[secret: password] please"},
		{"use password=hunter2, then", "use password=[secret: password], then"},
		{`{"password": "s3cr3t-Value"}`, `{"password": "[secret: password]"}`},
		{"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AWS_SECRET_ACCESS_KEY=[secret: credential]"},
		{"curl -H 'Authorization: Bearer abc123DEF456ghi789JKL' x", "curl -H 'Authorization: Bearer [secret: bearer token]' x"},
		{"key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\ndone", "key:\n[secret: private key]\ndone"},
		{"cut -----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA", "cut [secret: private key]"},
	} {
		got, kinds := Redact(c.in)
		if got != c.want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if len(kinds) != 1 {
			t.Errorf("Redact(%q): kinds %q, want one", c.in, kinds)
		}
		if again, k := Redact(got); again != got || len(k) != 0 {
			t.Errorf("Redact is not idempotent on %q: %q %q", got, again, k)
		}
	}
}

// A realistic page of notes — numbers, hashes, URLs, words that start like
// a key prefix, "password" and "token" in prose — is left exactly as it
// was: a false positive would damage the user's notes for good.
func TestRedactLeavesOrdinaryNotes(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "notes.md"))
	if err != nil {
		t.Fatal(err)
	}
	if got, kinds := Redact(string(b)); got != string(b) || len(kinds) != 0 {
		t.Errorf("ordinary notes changed (%q):\n%s", kinds, diffLines(string(b), got))
	}
	if found := Find(string(b)); len(found) != 0 {
		t.Errorf("Find reported %v", found)
	}
}

// The shared benchmark corpora (a LoCoMo conversation workspace, ws-M's
// 10,000 daily logs), when this checkout sits beside them: not one change.
// Skipped on a fresh clone without ../shared.
func TestRedactLeavesBenchCorpora(t *testing.T) {
	wd, _ := os.Getwd()
	data := filepath.Join(wd, "..", "..", "..", "shared", "bench", "data")
	if _, err := os.Stat(data); err != nil {
		t.Skipf("no benchmark corpora at %s", data)
	}
	files, changed := 0, 0
	check := func(name, text string) {
		files++
		if got, kinds := Redact(text); got != text {
			changed++
			if changed <= 5 {
				t.Errorf("%s changed (%q):\n%s", name, kinds, diffLines(text, got))
			}
		}
	}
	err := filepath.WalkDir(data, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch {
		case strings.HasSuffix(p, ".md"):
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			check(p, string(b))
		case strings.HasSuffix(p, ".tar.gz"):
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			zr, err := gzip.NewReader(f)
			if err != nil {
				return err
			}
			tr := tar.NewReader(zr)
			for {
				h, err := tr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					return err
				}
				if !strings.HasSuffix(h.Name, ".md") {
					continue
				}
				b, err := io.ReadAll(tr)
				if err != nil {
					return err
				}
				check(p+":"+h.Name, string(b))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 40 {
		t.Fatalf("only %d markdown files read under %s", files, data)
	}
	t.Logf("%d markdown files, %d changed", files, changed)
}

func diffLines(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for i := range al {
		if i >= len(bl) || al[i] != bl[i] {
			got := ""
			if i < len(bl) {
				got = bl[i]
			}
			out = append(out, "- "+al[i], "+ "+got)
		}
	}
	return strings.Join(out, "\n")
}

// BenchmarkRedactRequest: what a turn pays to keep secrets out of state.db —
// a request of ~32 KB of ordinary notes, the size of a full 8k context.
func BenchmarkRedactRequest(b *testing.B) {
	page, err := os.ReadFile(filepath.Join("testdata", "notes.md"))
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat(string(page), 32<<10/len(page)+1)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Redact(text)
	}
}
