package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"agent/core"
)

// recallCategory is the questions asked through the chat's recall
// (core.IndexRecall, DefaultRecallK places) rather than memory search.
const recallCategory = "chat recall: time words, MEMORY.md's facts kept"

// recallQuestion is a chat message and what its recall must hold.
type recallQuestion struct {
	text string
	ok   func(rs []core.Recalled) bool
}

// facts are MEMORY.md lines a chat message touches while naming a time in
// passing: the fact must be recalled whatever the days' logs hold.
var facts = []struct{ fact, ask, word string }{
	{"I'm vegetarian, so I cook without meat.", "what should I cook tonight?", "vegetarian"},
	{"My sister Clara lives in Porto; I visit her by train.", "could I visit my sister this weekend?", "Clara"},
	{"Allergic to penicillin: tell every doctor.", "what should I tell the doctor this morning?", "penicillin"},
	{"My mother's birthday is on 2 December; she likes orchids.", "is my mother's birthday this week?", "orchids"},
	{"I don't drink wine, only sparkling water.", "which wine should I bring to dinner tonight?", "sparkling"},
	{"The bike is locked at the station with the code 4721.", "where did I leave the bike yesterday?", "4721"},
}

// recallQuestions are the set's recall questions: a day named as in the
// time category (its evening entry must be recalled) and the facts.
func recallQuestions(dayEntry func(date string) (path, text string)) (memory string, qs []recallQuestion) {
	for _, w := range []struct{ ask, date string }{
		{"where did I go swimming yesterday?", "2026-11-27"},
		{"what did I do yesterday?", "2026-11-27"},
		{"who did I meet last Wednesday?", "2026-11-25"},
		{"what book did I finish on 3 November?", "2026-11-03"},
		{"where did I have dinner on 14 October?", "2026-10-14"},
		{"what happened 10 days ago?", "2026-11-18"},
	} {
		path, text := dayEntry(w.date)
		qs = append(qs, recallQuestion{w.ask, func(rs []core.Recalled) bool {
			for _, r := range rs {
				if r.Path == path && strings.Contains(r.Text, text) {
					return true
				}
			}
			return false
		}})
	}
	var b strings.Builder
	for _, f := range facts {
		b.WriteString("- " + f.fact + "\n")
		word := f.word
		qs = append(qs, recallQuestion{f.ask, func(rs []core.Recalled) bool {
			for _, r := range rs {
				if r.Path == "MEMORY.md" && strings.Contains(r.Text, word) {
					return true
				}
			}
			return false
		}})
	}
	return b.String(), qs
}

// askRecall asks qs through the chat's recall of home, as of now.
func askRecall(ctx context.Context, home string, qs []recallQuestion) (ok int) {
	mem, err := core.OpenIndexRecall(ctx, home, func(string) {})
	if err != nil {
		fail(err)
	}
	defer mem.Close()
	recallNow(mem, now)
	for _, q := range qs {
		rs, err := mem.Recall(ctx, q.text, core.DefaultRecallK)
		if err != nil {
			fail(err)
		}
		if q.ok(rs) {
			ok++
		} else if os.Getenv("MEMORYBENCH_V") != "" {
			fmt.Fprintf(os.Stderr, "missed (%s): %s\n", recallCategory, q.text)
		}
	}
	return ok
}
