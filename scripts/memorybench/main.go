// Command memorybench measures issue 46's memory in daily use on a set of its
// own, generated the same way every run: a dated diary of three months,
// notes with front matter in a notes folder, chats in which the assistant
// answered wrongly, and questions with time words and typos. It prints each
// category's recall as a markdown table (make bench runs it):
//
//	go run -tags sqlite_fts5 ./scripts/memorybench
//
// A category's question counts when its evidence is among the first 5 hits
// (time, typos, front matter) or, for the wrong answers, when the user's
// note ranks above the assistant's wrong answer and within 5.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"agent/index"
	"agent/memory"
)

const depth = 5

var now = time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC) // a Saturday

type question struct {
	category string
	text     string
	ok       func(hits []index.Hit) bool
}

func main() {
	home, err := os.MkdirTemp("", "memorybench")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(home)
	defer os.RemoveAll(home + "-vault")
	qs, recallQs := generate(home)
	ctx := context.Background()
	ix, err := index.Open(ctx, home, func(string) {})
	if err != nil {
		fail(err)
	}
	defer ix.Close()
	if _, err := ix.Reindex(ctx, index.ReindexOptions{}); err != nil {
		fail(err)
	}
	type tally struct{ n, ok int }
	per := map[string]*tally{}
	var order []string
	for _, q := range qs {
		opts := index.SearchOptions{K: 10}
		withNow(&opts, now)
		hits, err := ix.Search(ctx, q.text, opts)
		if err != nil && !strings.Contains(err.Error(), "no memory matches") {
			fail(err)
		}
		t := per[q.category]
		if t == nil {
			t = &tally{}
			per[q.category] = t
			order = append(order, q.category)
		}
		t.n++
		if q.ok(hits) {
			t.ok++
		} else if os.Getenv("MEMORYBENCH_V") != "" {
			fmt.Fprintf(os.Stderr, "missed (%s): %s\n", q.category, q.text)
		}
	}
	fmt.Println("| memory in daily use (issue 46) | recall |")
	fmt.Println("|---|---|")
	all := tally{}
	for _, c := range order {
		t := per[c]
		all.n += t.n
		all.ok += t.ok
		fmt.Printf("| %s | %d / %d |\n", c, t.ok, t.n)
	}
	fmt.Printf("| all | %d / %d |\n", all.ok, all.n)
	// The chat's recall, on the same set (its own row: "all" is memory
	// search's).
	fmt.Printf("| %s | %d / %d |\n", recallCategory, askRecall(ctx, home, recallQs), len(recallQs))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "memorybench:", err)
	os.Exit(1)
}

// within says whether a hit among the first depth satisfies f.
func within(hits []index.Hit, f func(index.Hit) bool) bool {
	for i, h := range hits {
		if i == depth {
			break
		}
		if f(h) {
			return true
		}
	}
	return false
}

var (
	restaurants = []string{"Casa Oliveira", "the Thai place on Rua Augusta", "Taberna Sal", "Pizzeria Nápoles", "the ramen bar", "Cervejaria Ramiro", "Café Martinho", "the Georgian place", "O Galito", "Tasca Zé", "the vegan diner", "Sushi Koi", "the harbour grill"}
	people      = []string{"Rui", "Ana", "Tomás", "Priya", "Marta", "Joaquim", "Inês", "Sofia", "Bruno", "Leonor", "Diogo", "Helena", "Kenji", "Margarida", "Pedro", "Beatriz", "Vasco"}
	books       = []string{"Piranesi", "The Overstory", "Klara and the Sun", "Middlemarch", "Stoner", "The Remains of the Day", "Pachinko", "Gilead", "Normal People", "The Dispossessed", "Wolf Hall"}
	pools       = []string{"the Olympic pool", "the river beach", "the lido", "the sports club"}
	places      = []string{"the library", "the market", "the station", "the park", "the museum", "the office"}
)

// kind of a day's evening entry, by its number from the start.
func evening(d int) (kind, text string) {
	switch d % 4 {
	case 0:
		return "dinner", fmt.Sprintf("Dinner at %s with %s.", restaurants[d%len(restaurants)], people[d%len(people)])
	case 1:
		return "book", fmt.Sprintf("Finished reading %s.", books[d%len(books)])
	case 2:
		return "met", fmt.Sprintf("Met %s at %s for coffee.", people[(d*3)%len(people)], places[d%len(places)])
	}
	return "swim", fmt.Sprintf("Went swimming at %s, 40 lengths.", pools[d%len(pools)])
}

var mornings = []string{"Ran 5 km along the river.", "Cycled to work in the rain.", "Yoga before breakfast.", "Walked the dog to the hill.", "Slept late, coffee on the balcony."}

var asks = map[string]string{
	"dinner": "where did I have dinner %s?",
	"book":   "what book did I finish %s?",
	"met":    "who did I meet %s?",
	"swim":   "where did I go swimming %s?",
}

var wrong = []struct{ thing, right, wrong string }{
	{"dentist appointment", "Thursday 10:00", "Monday at 15:00"},
	{"haircut", "Friday 18:30", "Tuesday at 12:00"},
	{"car service", "Wednesday 08:00", "Saturday at 09:00"},
	{"piano lesson", "Tuesday 17:00", "Thursday at 16:00"},
	{"tax meeting", "Monday 11:00", "Friday at 14:00"},
	{"vet visit", "Saturday 09:30", "Sunday at 10:00"},
	{"eye test", "Thursday 14:15", "Wednesday at 11:30"},
	{"boiler repair", "Friday 08:30", "Monday at 13:00"},
	{"passport interview", "Tuesday 10:45", "Thursday at 09:00"},
	{"team offsite", "Wednesday 09:00", "Tuesday at 09:00"},
	{"bank meeting", "Monday 16:00", "Wednesday at 10:00"},
	{"yoga workshop", "Sunday 11:00", "Saturday at 17:00"},
}

var notes = []struct{ file, title, country, alias, landmark string }{
	{"lisbon.md", "Lisbon trip", "portugal", "LX weekend", "Alfama"},
	{"kyoto.md", "Kyoto in spring", "japan", "sakura week", "Fushimi Inari"},
	{"oslo.md", "Oslo conference", "norway", "fjord talk", "the opera house"},
	{"lima.md", "Lima food tour", "peru", "ceviche crawl", "Barranco"},
	{"tbilisi.md", "Tbilisi with Ana", "georgia", "khachapuri run", "the old baths"},
	{"hanoi.md", "Hanoi stopover", "vietnam", "pho night", "the lake"},
	{"reykjavik.md", "Reykjavik winter", "iceland", "aurora hunt", "Hallgrímskirkja"},
	{"marrakesh.md", "Marrakesh long weekend", "morocco", "souk days", "the medina"},
	{"krakow.md", "Kraków with Tomás", "poland", "pierogi tour", "Wawel"},
	{"quebec.md", "Québec ski week", "canada", "poutine trip", "the citadel"},
}

// typo swaps two letters in the middle of a longer word, drops one of a
// shorter.
func typo(w string) string {
	r := []rune(strings.ToLower(w))
	if len(r) <= 5 {
		return string(append(r[:2:2], r[3:]...))
	}
	m := len(r) / 2
	r[m], r[m+1] = r[m+1], r[m]
	return string(r)
}

func generate(home string) ([]question, []recallQuestion) {
	files := map[string]string{}
	start := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	days := int(now.Sub(start).Hours() / 24) // up to yesterday
	dayOf := map[string]int{}
	for d := 0; d < days; d++ {
		date := start.AddDate(0, 0, d).Format(time.DateOnly)
		dayOf[date] = d
		_, ev := evening(d)
		files["logs/"+date+".md"] = fmt.Sprintf("# %s\n\n### 08:30\n\n%s\n\n### 19:30\n\n%s\n", date, mornings[d%len(mornings)], ev)
	}
	facts, recallQs := recallQuestions(func(date string) (string, string) {
		_, text := evening(dayOf[date])
		return "logs/" + date + ".md", text
	})
	files["MEMORY.md"] = "# Memory\n\n## User Facts\n\n- Lives in Lisbon.\n" + facts
	var qs []question
	// Time: a day named as a person names it; its evening entry must be
	// among the first hits.
	for _, w := range []struct{ phrase, date string }{
		{"yesterday", "2026-11-27"}, {"the day before yesterday", "2026-11-26"}, {"last Saturday", "2026-11-21"},
		{"last Sunday", "2026-11-22"}, {"last Wednesday", "2026-11-25"}, {"on 3 November", "2026-11-03"},
		{"on 14 October", "2026-10-14"}, {"on 2026-10-20", "2026-10-20"}, {"3 days ago", "2026-11-25"},
		{"on 9 September", "2026-09-09"}, {"on November 12", "2026-11-12"}, {"last Monday", "2026-11-23"},
		{"on 1 October", "2026-10-01"}, {"on 30 September", "2026-09-30"}, {"10 days ago", "2026-11-18"},
	} {
		kind, text := evening(dayOf[w.date])
		path := "logs/" + w.date + ".md"
		qs = append(qs, question{"time words (a day)", fmt.Sprintf(asks[kind], w.phrase), func(hits []index.Hit) bool {
			return within(hits, func(h index.Hit) bool { return h.Path == path && strings.Contains(h.Text, text) })
		}})
	}
	// A whole day, with no other word.
	for _, w := range []struct{ phrase, date string }{{"what did I do yesterday?", "2026-11-27"}, {"2026-11-23", "2026-11-23"}, {"what happened on 5 October?", "2026-10-05"}} {
		path := "logs/" + w.date + ".md"
		qs = append(qs, question{"time words (a day)", w.phrase, func(hits []index.Hit) bool {
			return len(hits) > 0 && hits[0].Path == path
		}})
	}
	// Wrong answers: a user's note, later a chat turn in which the
	// assistant got it wrong.
	for i, w := range wrong {
		noteDay := start.AddDate(0, 0, 40+i*3).Format(time.DateOnly)
		chatDay := start.AddDate(0, 0, 41+i*3).Format(time.DateOnly)
		files["logs/"+noteDay+".md"] += fmt.Sprintf("\n### 12:%02d\n\n%s moved to %s.\n", i, capital(w.thing), w.right)
		files["logs/"+chatDay+".md"] += "\n### 20:00" + memory.TurnHeadingMark + "evening\n\n" +
			memory.TurnEntry("remind me about my "+w.thing, "Atlas", fmt.Sprintf("Your %s is on %s. I will remind you about the %s.", w.thing, w.wrong, w.thing)) + "\n"
		right, bad := w.right, w.wrong
		qs = append(qs, question{"the user's note above the assistant's wrong answer", "when is my " + w.thing + "?", func(hits []index.Hit) bool {
			for j, h := range hits {
				if j == depth {
					return false
				}
				if strings.Contains(h.Text, right) {
					return true
				}
				if strings.Contains(h.Text, bad) {
					return false
				}
			}
			return false
		}})
	}
	// Front matter: a note found by a tag and by an alias, and cited by
	// its title.
	vault := home + "-vault"
	for _, n := range notes {
		writeFile(filepath.Join(vault, "travel", n.file), fmt.Sprintf("---\ntitle: %s\ntags: [travel, %s]\naliases: [%s]\n---\nHotel near %s. Booked in spring.\n", n.title, n.country, n.alias, n.landmark))
		path := "vault:travel/" + n.file
		for _, q := range []string{n.country, n.alias} {
			qs = append(qs, question{"front matter (tags, aliases)", q, func(hits []index.Hit) bool {
				return within(hits, func(h index.Hit) bool { return h.Path == path })
			}})
		}
		title := n.title
		qs = append(qs, question{"a note cited by its title", n.landmark, func(hits []index.Hit) bool {
			return len(hits) > 0 && hits[0].Path == path && hits[0].Heading == title
		}})
	}
	// Typos of words the diary holds.
	seen := map[string]bool{}
	for _, w := range append(append(append([]string{}, books...), people...), "Oliveira", "Taberna", "Martinho", "swimming", "breakfast", "balcony") {
		word := strings.Fields(w)[len(strings.Fields(w))-1]
		if len([]rune(word)) < 5 || seen[word] {
			continue
		}
		seen[word] = true
		want := word
		qs = append(qs, question{"typos", typo(word), func(hits []index.Hit) bool {
			return within(hits, func(h index.Hit) bool { return strings.Contains(h.Text, want) })
		}})
	}
	for rel, body := range files {
		writeFile(filepath.Join(home, rel), body)
	}
	if _, err := memory.AddSource(home, "vault", vault); err != nil {
		fail(err)
	}
	return qs, recallQs
}

func capital(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func writeFile(path, body string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		fail(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		fail(err)
	}
}
