package index

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"unicode"
)

func TestBuildQuery(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"   ", ""},
		{"?!…", ""},
		{"🙂🙂", ""},
		{"Lisbon", `"lisbon"`},
		{"When did I book the Lisbon flight?", `"book" OR "lisbon" OR "flight"`},
		{"lisbon LISBON Lisbon", `"lisbon"`},
		{`say "hello" AND (world OR NOT me) NEAR/3 col:val* -x ^y`, `"say" OR "hello" OR "world" OR "near" OR "3" OR "col" OR "val"`},
		{"the who", `"the" OR "who"`}, // only stopwords: keep them rather than search nothing
		{"a b c", `"a" OR "b" OR "c"`},
		{"room 5", `"room" OR "5"`},
		{"don't won't", `"don" OR "t" OR "won"`},
		{"e-mail co-op", `"mail" OR "co" OR "op"`},
		{"Café Zürich naïve", `"café" OR "zürich" OR "naïve"`},
		// CJK runs are searched by their bigrams (segment.go), none across
		// kanji and katakana; a hiragana ending (った) is a stopword.
		{"東京タワー 行った", `"東 京" OR "タ ワ" OR "ワ ー" OR "行 っ"`},
		{"C++ and C#", `"c" OR "and"`},
	} {
		if got := BuildQuery(tc.in); got != tc.want {
			t.Errorf("BuildQuery(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	long := strings.Repeat("word ", 10)
	for i := range 100 {
		long += " term" + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	if n := strings.Count(BuildQuery(long), " OR ") + 1; n != maxTerms {
		t.Errorf("long text: %d terms, want %d", n, maxTerms)
	}
}

// hostileQueries are things people and scripts type that FTS5 would read as
// syntax: each must give results or nothing, never an error.
var hostileQueries = []string{
	`"`, `""`, `"""`, `"unbalanced`, `unbalanced"`, `'single'`, `it's`,
	`*`, `**`, `lis*`, `*bon`, `-`, `--`, `-lisbon`, `+lisbon`, `^lisbon`,
	`:`, `::`, `heading:lisbon`, `text:`, `nosuchcolumn:x`, `{heading text}:lisbon`,
	`AND`, `OR`, `NOT`, `AND OR NOT`, `lisbon AND`, `OR lisbon`, `NOT lisbon`,
	`NEAR`, `NEAR(`, `NEAR(lisbon flight, 2)`, `lisbon NEAR/2 flight`,
	`(`, `)`, `((lisbon)`, `(lisbon))`, `()`, `[lisbon]`, `{`, `}`,
	`lisbon; DROP TABLE chunks; --`, `' OR 1=1 --`, `\`, `\"`, `%`, `_`,
	"\x00", "lisbon\x00flight", "tab\there", "line\nbreak", "\r\n",
	`🙂`, `✈️ Lisbon 🇵🇹`, `東京`, `カフェ`, `Ελλάδα`, `مرحبا`, `café`, "e\u0301",
	"\u0301", "\u200b", "\ufeff", "\U000F0000", `the`, `the of and`, `a`,
	strings.Repeat("lisbon ", 500), strings.Repeat("(", 300), strings.Repeat(`"`, 301),
	"\xff\xfe invalid utf8", `$(rm -rf /)`, `<script>alert(1)</script>`,
}

func TestHostileQueries(t *testing.T) {
	if len(hostileQueries) < 40 {
		t.Fatalf("only %d hostile queries", len(hostileQueries))
	}
	home := workspace(t, map[string]string{"MEMORY.md": memoryMD, "logs/2026-11-20.md": log1})
	ix, _ := open(t, home)
	reindex(t, ix, false)
	// Which ones find something, read off the notes by hand: those holding
	// one of their words (lisbon, flight, and, the, a) as a word of its
	// own. Every other one must find nothing.
	finds := map[string]bool{}
	for _, q := range []string{
		`-lisbon`, `+lisbon`, `^lisbon`, `heading:lisbon`, `{heading text}:lisbon`,
		`AND`, `AND OR NOT`, `lisbon AND`, `OR lisbon`, `NOT lisbon`,
		`NEAR(lisbon flight, 2)`, `lisbon NEAR/2 flight`, `((lisbon)`, `(lisbon))`, `[lisbon]`,
		`lisbon; DROP TABLE chunks; --`, "lisbon\x00flight", `✈️ Lisbon 🇵🇹`,
		`the`, `the of and`, `a`, strings.Repeat("lisbon ", 500),
	} {
		finds[q] = true
	}
	for _, q := range hostileQueries {
		for _, fresh := range []bool{false, true} {
			hits, err := ix.Search(context.Background(), q, SearchOptions{Fresh: fresh})
			switch {
			case err != nil && !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrNoTerms):
				t.Errorf("Search(%q): %v", q, err)
			case finds[q] && err != nil:
				t.Errorf("Search(%q): %v, want hits: it holds a word of the notes", q, err)
			case !finds[q] && err == nil:
				t.Errorf("Search(%q): %d hits, want none: it holds no word of the notes", q, len(hits))
			}
		}
	}
	// Queries with words do find them, whatever surrounds the words.
	for _, q := range []string{`"unbalanced lisbon`, `NEAR(lisbon flight, 2)`, `heading:lisbon`, `lisbon; DROP TABLE chunks; --`, `✈️ Lisbon 🇵🇹`} {
		if hits := search(t, ix, q, SearchOptions{}); len(hits) == 0 {
			t.Errorf("Search(%q) found nothing", q)
		}
	}
}

// FuzzBuildQuery runs every built query against a real FTS5 table with the
// index's tokenizer: any text must become a query FTS5 accepts.
func FuzzBuildQuery(f *testing.F) {
	for _, q := range hostileQueries {
		f.Add(q)
	}
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE t USING fts5(heading, text, tokenize = 'porter unicode61 remove_diacritics 2');
		INSERT INTO t VALUES ('Trip planning', 'Booked the flight to Lisbon'), ('', 'café 東京 e` + "\u0301" + `')`); err != nil {
		f.Fatal(err)
	}
	// Whether a text has a word is FTS5's own tokenizer's answer, not
	// isTokenRune's: unicode61 told the classes a query word is made of
	// (letters, numbers, marks, private use) counts the words it finds.
	if _, err := db.Exec(`CREATE VIRTUAL TABLE words USING fts5(w, tokenize = "unicode61 remove_diacritics 0 categories 'L* N* Mn Mc Co'");
		CREATE VIRTUAL TABLE words_seen USING fts5vocab(words, 'instance')`); err != nil {
		f.Fatal(err)
	}
	unknown := unicode61Unknown(f)
	hasWord := func(t *testing.T, s string) bool {
		// Invalid UTF-8 separates words, as in BuildQuery. Beyond the BMP
		// unicode61's classes are unreliable (U+1F642 🙂 is a word to it,
		// U+1F600 😀 is not), and so is any code point its older Unicode
		// tables lack (U+0380, unassigned; symbols assigned since): it
		// counts them as word characters where Go's tables say they are
		// not letters or numbers. There the oracle does not judge.
		s = strings.Map(func(r rune) rune {
			if r > 0xFFFF || unknown[r] && !unicode.In(r, unicode.L, unicode.N, unicode.Mn, unicode.Mc, unicode.Co) {
				return ' '
			}
			return r
		}, strings.ToValidUTF8(s, " "))
		res, err := db.Exec("INSERT INTO words VALUES (?)", s)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := res.LastInsertId()
		var n int
		if err := db.QueryRow("SELECT count(*) FROM words_seen WHERE doc = ?", id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n > 0
	}
	for _, s := range []string{"2026", "½ ²", "e\u0301", "\u0301", "\u0903", "\ue000", "東京", "_-_", "🙂 ✈️"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		q := BuildQuery(in)
		if q == "" {
			if hasWord(t, in) {
				t.Fatalf("BuildQuery(%q) = empty, but the text has a word", in)
			}
			return
		}
		rows, err := db.Query("SELECT rowid, bm25(t, 2.0, 1.0) FROM t WHERE t MATCH ? ORDER BY 2", q)
		if err == nil {
			for rows.Next() {
			}
			err = rows.Err()
			rows.Close()
		}
		if err != nil {
			t.Fatalf("BuildQuery(%q) = %s: FTS5 refused it: %v", in, q, err)
		}
	})
}

// unicode61Unknown returns the BMP code points FTS5's unicode61 tokenizer
// counts as word characters whatever categories it is told to keep: those
// missing from its Unicode tables. Asked of SQLite itself, in one insert of
// every code point, with only the surrogates' category (which no valid
// UTF-8 text holds) kept.
func unicode61Unknown(f *testing.F) map[rune]bool {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE u USING fts5(x, tokenize = "unicode61 remove_diacritics 0 categories 'Cs'");
		CREATE VIRTUAL TABLE u_terms USING fts5vocab(u, 'row')`); err != nil {
		f.Fatal(err)
	}
	var b strings.Builder
	for r := rune(1); r <= 0xFFFF; r++ {
		if r < 0xD800 || r > 0xDFFF {
			b.WriteRune(r)
			b.WriteByte(' ')
		}
	}
	if _, err := db.Exec("INSERT INTO u VALUES (?)", b.String()); err != nil {
		f.Fatal(err)
	}
	rows, err := db.Query("SELECT term FROM u_terms")
	if err != nil {
		f.Fatal(err)
	}
	defer rows.Close()
	unknown := map[rune]bool{}
	for rows.Next() {
		var term string
		if err := rows.Scan(&term); err != nil {
			f.Fatal(err)
		}
		for _, r := range term {
			unknown[r] = true
		}
	}
	if err := rows.Err(); err != nil {
		f.Fatal(err)
	}
	if !unknown[0x0380] || unknown['a'] {
		f.Fatalf("unicode61's unknown code points: U+0380 %v, 'a' %v", unknown[0x0380], unknown['a'])
	}
	return unknown
}
