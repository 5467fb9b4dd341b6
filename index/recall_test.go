package index

import (
	"reflect"
	"strings"
	"testing"
)

// Everyday phrasings: a question worded unlike the note it needs (another
// form of a word, a question word where the note has a date, a name and a
// pronoun) must find that note before a distractor that shares a word with
// it. Each case is its own workspace.
func TestEverydayPhrasings(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		files       map[string]string
		want        string // path of the first hit
	}{{
		name:  "fly finds flights, and a when question the note with a date",
		query: "when do I fly to Lisbon",
		files: map[string]string{
			"logs/2026-11-02.md": "# 2026-11-02\n\n## Trip\n\nBooked flights to Lisbon for 4 December, window seats.\n",
			"logs/2026-11-05.md": "# 2026-11-05\n\n## Packing\n\nLisbon: travel adapter.\n",
		},
		want: "logs/2026-11-02.md",
	}, {
		name:  "plural in the question, singular in the note",
		query: "dentist appointments",
		files: map[string]string{
			"logs/2026-03-01.md": "# 2026-03-01\n\nDentist appointment moved to Friday at 9.\n",
			"logs/2026-03-02.md": "# 2026-03-02\n\nThe dentist on Elm Street has closed, a pity.\n",
		},
		want: "logs/2026-03-01.md",
	}, {
		name:  "irregular plural: children and child",
		query: "which school do the children go to",
		files: map[string]string{
			"logs/2026-01-10.md": "# 2026-01-10\n\nOur child starts at Greenfield school in September.\n",
			"logs/2026-01-11.md": "# 2026-01-11\n\nSchool bus strike announced, buses stay in the depot.\n",
		},
		want: "logs/2026-01-10.md",
	}, {
		name:  "irregular past: bought for buy",
		query: "what did I buy for Anna's birthday",
		files: map[string]string{
			"logs/2026-05-01.md": "# 2026-05-01\n\nBought a green scarf for Anna, wrapped it for her birthday.\n",
			"logs/2026-05-02.md": "# 2026-05-02\n\nAnna's birthday party is at the lake this year.\n",
		},
		want: "logs/2026-05-01.md",
	}, {
		name:  "regular past: moved for move",
		query: "when did Ben move to Oslo",
		files: map[string]string{
			"logs/2026-04-03.md": "# 2026-04-03\n\nBen moved to Oslo on 2 April with two suitcases.\n",
			"logs/2026-04-04.md": "# 2026-04-04\n\nOslo weather is grim, says the forecast.\n",
		},
		want: "logs/2026-04-03.md",
	}, {
		name:  "irregular past: met for meet",
		query: "where did we meet Tom",
		files: map[string]string{
			"logs/2026-02-06.md": "# 2026-02-06\n\nMet Tom at the climbing gym, he belays well.\n",
			"logs/2026-02-07.md": "# 2026-02-07\n\nTom: phone number in the contacts.\n",
		},
		want: "logs/2026-02-06.md",
	}, {
		name:  "derivation: marry and marriage",
		query: "when do Lea and Sam marry",
		files: map[string]string{
			"logs/2026-06-01.md": "# 2026-06-01\n\nThe marriage of Lea and Sam is on 12 June, in the town hall.\n",
			"logs/2026-06-02.md": "# 2026-06-02\n\nLea and Sam lent us their tent.\n",
		},
		want: "logs/2026-06-01.md",
	}, {
		name:  "question word against the date in the note: when and Tuesday",
		query: "when is the vet visit for Miso",
		files: map[string]string{
			"logs/2026-07-01.md": "# 2026-07-01\n\nMiso vet visit booked: Tuesday, 10:30.\n",
			"logs/2026-07-02.md": "# 2026-07-02\n\nMiso vet visit went fine.\n",
		},
		want: "logs/2026-07-01.md",
	}, {
		name:  "born and birthday",
		query: "when was Mia born",
		files: map[string]string{
			"MEMORY.md": "# Memory\n\n## Family\n\nMia's birthday is 3 May.\n\n## Friends\n\nMia from work plays the cello.\n",
		},
		want: "MEMORY.md",
	}, {
		name:  "a name and a pronoun: her job",
		query: "what did Priya say about her new job",
		files: map[string]string{
			"logs/2026-08-01.md": "# 2026-08-01\n\nPriya said the new job at the bakery suits her, early hours though.\n",
			"logs/2026-08-02.md": "# 2026-08-02\n\nNew job listings at the library board.\n",
		},
		want: "logs/2026-08-01.md",
	}, {
		name:  "a name and a pronoun: his bike",
		query: "did Omar sell his bike",
		files: map[string]string{
			"logs/2026-09-01.md": "# 2026-09-01\n\nOmar sold the bike to a neighbour for 200.\n",
			"logs/2026-09-02.md": "# 2026-09-02\n\nBike shop on Main Street fixes a bike in a day.\n",
		},
		want: "logs/2026-09-01.md",
	}, {
		name:  "lost for lose",
		query: "what did I lose at the station",
		files: map[string]string{
			"logs/2026-10-01.md": "# 2026-10-01\n\nLost my umbrella at the station, the blue one.\n",
			"logs/2026-10-02.md": "# 2026-10-02\n\nStation parking costs 4 a day.\n",
		},
		want: "logs/2026-10-01.md",
	}, {
		name:  "derivation handled by the stemmer: painting and painted",
		query: "what did Jo paint",
		files: map[string]string{
			"logs/2026-12-01.md": "# 2026-12-01\n\nJo painted a sunset over the harbour.\n",
			"logs/2026-12-02.md": "# 2026-12-02\n\nJo is away until Monday.\n",
		},
		want: "logs/2026-12-01.md",
	}, {
		name:  "a short form in the note: fave for favorite",
		query: "what is Gina's favorite style of dance",
		files: map[string]string{
			"logs/2026-01-20.md": "# 2026-01-20\n\nGina: contemporary dance is my fave, so expressive.\n",
			"logs/2026-01-21.md": "# 2026-01-21\n\nGina's dance shoes need new soles.\n",
		},
		want: "logs/2026-01-20.md",
	}, {
		name:  "British spelling in the note: colour for color",
		query: "what color is the new sofa",
		files: map[string]string{
			"logs/2026-02-10.md": "# 2026-02-10\n\nThe sofa arrived, a deep green colour.\n",
			"logs/2026-02-11.md": "# 2026-02-11\n\nSofa cushions cleaned, the stains are gone.\n",
		},
		want: "logs/2026-02-10.md",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			ix, _ := open(t, workspace(t, tc.files))
			reindex(t, ix, false)
			hits := search(t, ix, tc.query, SearchOptions{})
			if len(hits) == 0 || hits[0].Path != tc.want {
				t.Fatalf("%q: %v, want %s first", tc.query, paths(hits), tc.want)
			}
			if tc.want == "MEMORY.md" && !strings.Contains(hits[0].Text, "birthday") {
				t.Fatalf("%q: first hit %q", tc.query, hits[0].Text)
			}
		})
	}
}

// No word is in two groups of forms: the lookup would keep only the last,
// and the word would lose the forms of the first.
func TestFormGroupsAreDisjoint(t *testing.T) {
	seen := map[string]int{}
	for i, g := range formGroups {
		for _, f := range g {
			if j, ok := seen[f]; ok && j != i {
				t.Errorf("%q is in groups %v and %v", f, formGroups[j], g)
			}
			if f != strings.ToLower(f) || strings.ContainsAny(f, " -'") {
				t.Errorf("%q: forms are single lowercase words, as queryTerms gives them", f)
			}
			seen[f] = i
		}
	}
}

// Each hit says which sub-query found it: a note only another word form
// matches is reported as found by the forms.
func TestHitQuery(t *testing.T) {
	ix, _ := open(t, workspace(t, map[string]string{
		"logs/2026-11-02.md": "# 2026-11-02\n\nBooked the flight home.\n",
		"logs/2026-11-03.md": "# 2026-11-03\n\nWe fly kites on the beach.\n",
	}))
	reindex(t, ix, false)
	hits := search(t, ix, "fly", SearchOptions{})
	got := map[string]string{}
	for _, h := range hits {
		got[h.Path] = h.Query
	}
	want := map[string]string{"logs/2026-11-03.md": "fly", "logs/2026-11-02.md": "forms: flies flew flown flight"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("queries = %v, want %v", got, want)
	}
	if hits[0].Path != "logs/2026-11-03.md" {
		t.Errorf("the word as typed should rank first: %v", paths(hits))
	}
}

func TestBuildPlan(t *testing.T) {
	labels := func(p plan) []string {
		var out []string
		for _, s := range p.subs {
			out = append(out, s.label)
		}
		return out
	}
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Lisbon", []string{"lisbon"}},
		{"when do I fly to Lisbon?", []string{"fly lisbon", "all: fly lisbon", "forms: flies flew flown flight"}},
		{"What date is the party", []string{"date party", "all: date party"}},
		{"the who", []string{"the who", "all: the who"}},
		{"?!", nil},
	} {
		if got := labels(buildPlan(tc.in, false)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("buildPlan(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if p := buildPlan("lisbon NOT flight", true); len(p.subs) != 1 || p.subs[0].match != "lisbon NOT flight" {
		t.Errorf("raw plan: %+v", p)
	}
	if !buildPlan("when do I fly to Lisbon?", false).when || buildPlan("where do I fly", false).when {
		t.Error("plan.when")
	}
	for text, want := range map[string]bool{
		"Booked flights for 4 December": true, "on Tuesday": true, "see you tomorrow!": true, "# 2026-07-01\n\nOn Sat.": true,
		"Lisbon: travel adapter": false, "# 2026-07-01\n\nvet visit": false, "a day out": false,
	} {
		if saysDate(text) != want {
			t.Errorf("saysDate(%q) = %v", text, !want)
		}
	}
	for q, want := range map[string]bool{
		"When is it": true, "how long ago": true, "what day is the party": true, "which year": true,
		"what is the day plan": false, "a day out": false, "where is it": false,
	} {
		if asksWhen(q) != want {
			t.Errorf("asksWhen(%q) = %v", q, !want)
		}
	}
}

// The chunk after a strong match is lifted above an equal chunk elsewhere:
// the answer follows the question.
func TestNextChunkIsLifted(t *testing.T) {
	para := func(s string) string {
		return s + " " + strings.Repeat("Small talk about the weather and the kids. ", 12) + "\n\n"
	}
	ix, _ := open(t, workspace(t, map[string]string{
		"logs/2026-03-03.md": "# 2026-03-03\n\n## Chat\n\n" + para("Which tiles did you pick for the bathroom renovation?") +
			para("We went with green tiles in the end."),
		"logs/2026-03-04.md": "# 2026-03-04\n\n## Chat\n\n" + para("Dinner plans for Friday, pasta again.") +
			para("We went with green tiles in the end."),
	}))
	reindex(t, ix, false)
	hits := search(t, ix, "tiles bathroom renovation", SearchOptions{K: 3})
	if len(hits) != 3 {
		t.Fatalf("hits: %v", paths(hits))
	}
	if !strings.Contains(hits[0].Text, "Which tiles") || hits[1].Path != "logs/2026-03-03.md" || !strings.Contains(hits[1].Text, "green tiles") {
		t.Fatalf("order: %v %v %v", hits[0].StartLine, hits[1].Path, hits[1].StartLine)
	}
}

// A second chunk of the same day gives way to another day's chunk that
// scores a little less: evidence spread over days fits the budget.
func TestDatesAreSpread(t *testing.T) {
	para := func(s string) string {
		return s + " " + strings.Repeat("Unrelated chatter about lunch and traffic. ", 12) + "\n\n"
	}
	ix, _ := open(t, workspace(t, map[string]string{
		"logs/2026-04-01.md": "# 2026-04-01\n\n## Garden\n\n" + para("Planted tomatoes by the fence.") +
			para("Nothing else today, just chatter.") + para("Tomatoes watered twice."),
		"logs/2026-04-09.md": "# 2026-04-09\n\n## Garden\n\n" + para("Tomatoes need stakes soon, they lean a lot."),
	}))
	reindex(t, ix, false)
	hits := search(t, ix, "tomatoes", SearchOptions{K: 3})
	if len(hits) != 3 || hits[0].Path != "logs/2026-04-01.md" || hits[1].Path != "logs/2026-04-09.md" {
		t.Fatalf("order: %v", paths(hits))
	}
}
