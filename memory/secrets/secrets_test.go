package secrets

import (
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each provider's kind, as the provider issues it (made-up values of the
// real shape), inside a sentence: the value is replaced by the marker, the
// words around it stay.
func TestRedactKinds(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"my key is AKIAPIX6EA6QOM66ZJOJ ok", "my key is [secret: aws access key] ok"},
		{"AWS's documented AKIAIOSFODNN7EXAMPLE has the shape", "AWS's documented [secret: aws access key] has the shape"},
		{"token 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 here", "token [secret: github token] here"},
		{"app " + ghToken("ghs_", "Zq8wLm3Np7Rt2Vx6Yb1Cd5Fg9Hj4Kk") + " here", "app [secret: github token] here"},
		{"pat github_pat_11ABCDEFG0a1b2c3d4e5f6_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8dKLzdocJ2isAjIhKtJ0RlgLK end", "pat [secret: github token] end"},
		{"openai sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z0AbC end", "openai [secret: openai key] end"},
		{"openai sk-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z0AbCdEf7g end", "openai [secret: openai key] end"},
		{"claude sk-ant-api03-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z0AbC-_xyz end", "claude [secret: anthropic key] end"},
		{"slack xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx end", "slack [secret: slack token] end"},
		{"hook https://hooks.slack.com/services/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 end", "hook [secret: slack webhook] end"},
		{"maps AIzaSyA-1234567890abcdefghijklmnopqrstu end", "maps [secret: google api key] end"},
		{"maps AIzaSyB7c9D2e4F6g8H0i2J4k6L8m0N2p4Q6r8- end", "maps [secret: google api key] end"},
		{"stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc end", "stripe [secret: stripe key] end"},
		{"stripe rk_test_51H7q2LkR9sTu3Vw5XyZ end", "stripe [secret: stripe key] end"},
		{"webhook whsec_Mz4rT8vK2pQ9wX6nB3cL7hJ5dF1gS0aY end", "webhook [secret: stripe webhook secret] end"},
		{"gitlab glpat-AbCdEf1234567890XyZ_ end", "gitlab [secret: gitlab token] end"},
		{"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U end", "jwt [secret: jwt] end"},
		{"hf 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 end", "hf [secret: hugging face token] end"},
		{"hf hf_Omxg3TeKdNnFR1BXuDLDxtpYl5XpfKtHF9 end", "hf [secret: hugging face token] end"},
		{"my twilio auth token is 3f9a2b7c4d1e8f5a6b3c0d9e2f7a4b1c, ok", "my twilio auth token is [secret: twilio auth token], ok"},
		{"Twilio Auth Token 9e2f7a4b1c3f9a2b7c4d1e8f5a6b3c0d", "Twilio Auth Token [secret: twilio auth token]"},
		{"npm " + ghToken("npm_", "a7Kp2Qw9Zx4Lm8Nr3Vt6Yb1Cd5Fg0H") + " end", "npm [secret: npm token] end"},
		{"sg 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 end", "sg [secret: sendgrid key] end"},
		{"hook https://discord.com/api/webhooks/123456789012345678/aB3dE6fG9hI2jK5lM8nO1pQ4rS7tU0vW3xY6zA9bC2dE5fG8hI1jK4lM7nO0pQ3rS6t end", "hook [secret: discord webhook] end"},
		{"do dop_v1_3f9a2b7c4d1e8f5a6b3c0d9e2f7a4b1c8d5e2f9a6b3c0d7e4f1a8b5c2d9e6f3a end", "do [secret: digitalocean token] end"},
		{"shop 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 end", "shop [secret: shopify token] end"},
		{"age AGE-SECRET-KEY-1RNUJCKPAK28LRDJG0EEL92UE3GM36KCWF9TFWWQLTSJQF6H5GRAEEEEX7E end", "age [secret: age secret key] end"},
		{"bot 7254893016:AAHx3kP9vQ2mZ7rT5wY8bN1cF4gJ6hL0sDq end", "bot [secret: telegram bot token] end"},
		{"url https://api.telegram.org/bot7254893016:AAHx3kP9vQ2mZ7rT5wY8bN1cF4gJ6hL0sDq/sendMessage", "url https://api.telegram.org/bot[secret: telegram bot token]/sendMessage"},
		{"pypi pypi-AgEIcHlwaS5vcmcCJGM3ZjE5YTQyLTljYjUtNDk4ZC05ZjU3LWU0YzI4ZDFhNmIwOQACKlszLCJhIl0 end", "pypi [secret: pypi token] end"},
		{"docker dckr_pat_7hQ2xK9mV4pZ1rT6wY3bN8cF0gJ end", "docker [secret: docker hub token] end"},
		{"linear lin_api_Q8w2E5r7T1y4U6i9O3p0A2s5D7f9G1h3J5k7L9z2 end", "linear [secret: linear key] end"},
		{"mailgun key-3f9a2b7c4d1e8f5a6b3c0d9e2f7a4b1c end", "mailgun [secret: mailgun key] end"},
		{"curl -H 'Authorization: Bearer abc123DEF456ghi789JKLx' x", "curl -H 'Authorization: Bearer [secret: bearer token]' x"},
		{"Authorization: Basic YWRtaW46VHIwdWI0ZG9yJjM=", "Authorization: Basic [secret: basic credentials]"},
		{"key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACB7Qx2v9cJ\n-----END OPENSSH PRIVATE KEY-----\ndone", "key:\n[secret: private key]\ndone"},
		{"db password=hunter2 please", "db password=[secret: password] please"},
		{"AWS_SECRET_ACCESS_KEY=XbiufMdI8X2Y4rUmer/BH3M1XS0DRdJuPnBIKpi9", "AWS_SECRET_ACCESS_KEY=[secret: credential]"},
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

// An AWS key is AKIA or ASIA and exactly 16 upper-case letters and digits,
// a whole word: one to four fewer (a look-alike in a doc, an id cut short)
// or the same 20 characters inside a longer word are left as written.
func TestAWSKeyShapeIsExact(t *testing.T) {
	const key = "AKIAPIX6EA6QOM66ZJOJ"
	if got, _ := Redact("key " + key + " here"); got != "key [secret: aws access key] here" {
		t.Fatalf("the whole key is not replaced: %q", got)
	}
	for _, in := range []string{
		"id AKIA2XQ7LMZ9PW3R here",    // 12
		"id AKIA2XQ7LMZ9PW3RK here",   // 13
		"id ASIA2XQ7LMZ9PW3RKT here",  // 14
		"id AKIA2XQ7LMZ9PW3RKTV here", // 15
		"id x" + key + " here",
		"id 9" + key + " here",
		"id " + key + "Q here",
	} {
		if got, kinds := Redact(in); got != in || kinds != nil {
			t.Errorf("Redact(%q) = %q (%q), want it unchanged", in, got, kinds)
		}
	}
}

// ghToken makes a GitHub-style token (also npm's): prefix, 30 characters,
// and their CRC32 in base62, six digits.
func ghToken(prefix, body string) string {
	sum := crc32.ChecksumIEEE([]byte(body))
	tail := make([]byte, 6)
	for i := 5; i >= 0; i-- {
		tail[i] = base62[sum%62]
		sum /= 62
	}
	return prefix + body + string(tail)
}

// A look-alike of a GitHub or npm token — the right prefix, length and
// alphabet, a checksum that does not add up, as in docs and examples — is
// left as written; the same body with its checksum is a token.
func TestChecksum(t *testing.T) {
	real := ghToken("ghp_", "Zq8wLm3Np7Rt2Vx6Yb1Cd5Fg9Hj4Kk")
	fake := real[:len(real)-1] + string(real[len(real)-1]^1)
	npm := ghToken("npm_", "a7Kp2Qw9Zx4Lm8Nr3Vt6Yb1Cd5Fg0H")
	npmFake := npm[:len(npm)-1] + string(npm[len(npm)-1]^1)
	for _, c := range []struct {
		in   string
		want bool
	}{
		{real, true}, {fake, false}, {npm, true}, {npmFake, false},
		{"ghp_16C7e42F292c6912E7710c838347Ae178B4a", false},
	} {
		if got := len(Find("x "+c.in+" y")) == 1; got != c.want {
			t.Errorf("Find(%q) found = %v, want %v", c.in, got, c.want)
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

// BenchmarkRedactAdversarial: text built to make a scan quadratic — one
// 512 KB line of JSON with a key word every 40 bytes, URLs with no slash,
// and key block headers without an END line.
func BenchmarkRedactAdversarial(b *testing.B) {
	for _, c := range []struct{ name, unit string }{
		{"json-line", `{"token": "x", "password": "y", "a": 1},`},
		{"urls", "a://b:c@d://e:f@g"},
		{"headers", "-----BEGIN RSA PRIVATE KEY-----\n"},
	} {
		text := strings.Repeat(c.unit, 512<<10/len(c.unit))
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				Redact(text)
			}
		})
	}
}
