package secrets

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// spliceTexts makes n texts of the pieces the scans look for — key words
// in both cases, operators, quotes, prefixes, line breaks, URL and key
// block pieces, random runs — spliced at random (seeded): ~10% of them
// hold a finding, the rest come close to one.
func spliceTexts(n int) []string { return splice(n, allPieces) }

var allPieces = []string{"password", "PASSWORD", "Pass", "pwd", "token", "TOKEN", "key", "Key", "api_", "API_", "secret", "auth",
	"Authorization", "Bearer", "bearer", "Basic ", "curl", " -u ", "--user", "machine", "login", "default", "\n", "\n", " ", " ",
	"\t", "=", ": ", ":", "\"", "'", "://", "@", "?", "&", "-----BEGIN ", "RSA PRIVATE KEY", "-----", "-----END ",
	"ghp_", "sk-", "sk-ant-api03-", "AKIA", "xoxb-", "hf_", "eyJ", ".", "glpat-", "AIza", "SG.", ":AA", "key-", "npm_", "whsec_",
	"sk_live_", "dckr_pat_", "lin_api_", "pypi-AgE", "AGE-SECRET-KEY-1", "shpat_", "dop_v1_", "https://hooks.slack.com/services/",
	"https://discord.com/api/webhooks/", "github_pat_", "Tr0ub4dor3x", "9f86d081884c7d659a2feaa0c55ad015", "postgres://", "u:", "[secret: "}

func splice(n int, pieces []string) []string {
	const alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-"
	r := rand.New(rand.NewPCG(1, 2))
	texts := make([]string, n)
	for i := range texts {
		var b strings.Builder
		for range 1 + r.IntN(40) {
			if r.IntN(6) == 0 {
				for range 4 + r.IntN(60) {
					b.WriteByte(alnum[r.IntN(len(alnum))])
				}
			} else {
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
		}
		texts[i] = b.String()
	}
	return texts
}

// differentialTexts: the spliced texts, the generated notes, the page of
// ordinary notes and the fuzz seeds.
func differentialTexts(t *testing.T) []string {
	texts := append(spliceTexts(20000), notesText(64)...)
	page, err := os.ReadFile(filepath.Join("testdata", "notes.md"))
	if err != nil {
		t.Fatal(err)
	}
	seeds, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzRedact", "*"))
	texts = append(texts, string(page))
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	return texts
}

// The trigram set only skips searches that would find nothing: Find gives
// the same findings as with a set that says every literal may occur (all
// searches run, as before the set), on texts that hold findings of every
// kind and texts that come close.
func TestTrigramsSkipNothing(t *testing.T) {
	found := 0
	for _, s := range differentialTexts(t) {
		var all text
		all.init(s)
		for i := range all.grams {
			all.grams[i] = ^uint64(0)
		}
		want := all.find()
		if got := Find(s); !slices.Equal(got, want) {
			t.Fatalf("Find(%q) = %v, with every search run %v", s, got, want)
		}
		found += len(want)
	}
	if found < 1000 {
		t.Fatalf("only %d findings: the texts test too little", found)
	}
}

// may never says no to a piece of the lowercased text.
func TestMayKnowsEveryTrigram(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, s := range differentialTexts(t) {
		var x text
		x.init(s)
		lower := asciiLower(s)
		for range 20 {
			if len(s) < 3 {
				break
			}
			i := r.IntN(len(s) - 2)
			j := i + 3 + r.IntN(min(len(s)-i-2, 12))
			if !x.may(lower[i:j]) {
				t.Fatalf("may(%q) = false, in %q", lower[i:j], s)
			}
		}
	}
}

// netrcMatches, which runs the pattern on the lines that can match, finds
// what the pattern finds over the whole text.
func TestNetrcMatchesWholeText(t *testing.T) {
	texts := append(differentialTexts(t), splice(20000, []string{"machine ", "default ", "login ", "password ", "password", "u", "h.example.com",
		"Tr0ub4dor3x", " ", "\t", "\n", "\n", "\r\n", "#"})...)
	texts = append(texts, "machine h login u password p", "password\n", "\npassword  x \n\n  password y", "login a password b\r\npassword c",
		"default password q\nmachine m\n password r\n", "passwordpassword x\npassword", "")
	matched := 0
	for _, s := range texts {
		want := netrcLine().FindAllStringSubmatchIndex(s, -1)
		var got [][]int
		for m := range netrcMatches(s) {
			got = append(got, m)
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("netrcMatches(%q) = %v, the pattern over the text %v", s, got, want)
		}
		matched += len(want)
	}
	if matched < 100 {
		t.Fatalf("only %d matches: the texts test too little", matched)
	}
}
