package secrets

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// notesText makes n notes of about 2 KB each, like a workspace's daily
// logs: markdown prose and code snippets that mention keys, tokens,
// passwords, auth headers and URLs without holding a secret (expressions,
// placeholders, words). Seeded: every run reads the same text.
func notesText(n int) []string {
	r := rand.New(rand.NewPCG(7, 11))
	prose := []string{
		"The deploy went fine after we rotated the signing key and restarted the workers.",
		"Remember that the API token expires every 30 days; the dashboard shows when.",
		"She asked IT to reset her password because the old one had expired again.",
		"The secret to a good sourdough is patience and a warm kitchen, says Maria.",
		"We moved the auth service behind the gateway so that Authorization headers are checked once.",
		"Max tokens for the summarizer is 2048; anything longer gets cut at a paragraph.",
		"The bearer of the news was Tom, who had read it on the mailing list.",
		"Use curl to check the health endpoint before and after the migration.",
		"Keyboard shortcuts: Ctrl-K opens the palette, Ctrl-P the file finder.",
		"Meeting notes: budget for Q3 approved, hiring two engineers, office move in May.",
		"The passphrase for the backup disk is in the password manager, not here.",
		"PostgreSQL 16 is faster on our queries; shared_buffers = 4GB helped most.",
		"Read https://example.com/docs/getting-started?lang=en#install for the setup steps.",
		"Primary key and foreign key constraints are checked at commit time in SQLite.",
		"The session cookie is HttpOnly and Secure; the CSRF token is in a header.",
		"Bought a new key ring, a lamp for the desk and two books on the history of Lisbon.",
	}
	code := []string{
		"```python\napi_key = os.environ[\"API_KEY\"]\nclient = Client(api_key=api_key, timeout=30)\n```",
		"```sh\ncurl -H \"Authorization: Bearer $TOKEN\" https://api.example.com/v1/items\n```",
		"```yaml\ndatabase:\n  host: db.internal\n  password: ${DB_PASSWORD}\n  pool: 10\n```",
		"```go\ntoken, err := auth.NewToken(ctx, cfg.Secret)\nif err != nil {\n\treturn err\n}\n```",
		"```js\nconst secret = process.env.SESSION_SECRET;\napp.use(session({ secret, resave: false }));\n```",
		"```ini\n[server]\nport = 8080\nsecret_key = <your-secret-key>\n```",
		"```sql\nSELECT id, name FROM users WHERE api_key_hash = $1;\n```",
		"```sh\nexport GITHUB_TOKEN=$(gh auth token)\ngit push origin main\n```",
	}
	notes := make([]string, n)
	for i := range notes {
		var b strings.Builder
		fmt.Fprintf(&b, "# 2026-%02d-%02d\n\n", 1+i%12, 1+i%28)
		for b.Len() < 2048 {
			fmt.Fprintf(&b, "## %s\n\n", strings.TrimSuffix(strings.SplitN(prose[r.IntN(len(prose))], ",", 2)[0], "."))
			for range 2 + r.IntN(4) {
				b.WriteString(prose[r.IntN(len(prose))])
				b.WriteString(" ")
				b.WriteString(strings.ToLower(prose[r.IntN(len(prose))]))
				b.WriteString("\n")
			}
			b.WriteString("\n")
			if r.IntN(2) == 0 {
				b.WriteString(code[r.IntN(len(code))] + "\n\n")
			}
		}
		notes[i] = b.String()
	}
	return notes
}

// BenchmarkFindNotes: what indexing a workspace pays, Find once per note
// of ~2 KB (the index redacts every note on its way in). Also a single
// 64 KB text of the same notes.
func BenchmarkFindNotes(b *testing.B) {
	notes := notesText(256)
	size := 0
	for _, n := range notes {
		size += len(n)
	}
	b.Run("per-note", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, n := range notes {
				Find(n)
			}
		}
	})
	page := strings.Join(notes, "\n")[:64<<10]
	b.Run("64KB", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		for b.Loop() {
			Find(page)
		}
	})
}

// The generated notes hold no secret: the benchmark measures the common
// case, and stays honest if the generator drifts into a real shape.
func TestNotesTextHoldsNoSecret(t *testing.T) {
	for i, n := range notesText(256) {
		if f := Find(n); len(f) != 0 {
			t.Fatalf("note %d: %v in\n%s", i, f, n)
		}
	}
}
