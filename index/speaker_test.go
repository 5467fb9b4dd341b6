package index

import (
	"strings"
	"testing"

	"agent/memory"
)

// turnLog is a daily log holding a chat turn as core's logTurn writes it.
func turnLog(date, clock, message, reply string) string {
	return "# " + date + "\n\n### " + clock + memory.TurnHeadingMark + "kitchen\n\n" + memory.TurnEntry(message, "Atlas", reply) + "\n"
}

// The user's words outrank the assistant's (issue 46): a model's wrong
// answer, logged with the turn, comes after the user's own note about the
// same thing, and is known as the assistant's (Hit.By), while the user's half
// of the turn is a chunk of its own, the user's.
func TestUsersNoteOutranksAssistantsAnswer(t *testing.T) {
	home := workspace(t, map[string]string{
		"logs/2026-11-20.md": turnLog("2026-11-20", "18:02", "I have a dentist appointment coming up, remind me",
			"Your dentist appointment is on Monday at 15:00. I will remind you about the dentist appointment."),
		"logs/2026-11-18.md": "# 2026-11-18\n\n### 09:10\n\nDentist appointment moved to Thursday 10:00.\n",
	})
	ix, _ := open(t, home)
	hits := search(t, ix, "dentist appointment", SearchOptions{})
	if len(hits) < 3 {
		t.Fatalf("hits %v, want the note and the turn's two halves", paths(hits))
	}
	first := hits[0]
	if first.Path != "logs/2026-11-18.md" || first.By != "" {
		t.Errorf("first hit %s (by %q), want the user's note logs/2026-11-18.md", first.Path, first.By)
	}
	var reply, asked *Hit
	for i, h := range hits {
		switch {
		case strings.Contains(h.Text, "Monday at 15:00"):
			reply = &hits[i]
			if i == 0 {
				t.Errorf("the assistant's wrong answer ranks first")
			}
		case strings.Contains(h.Text, "**User:**"):
			asked = &hits[i]
		}
	}
	if reply == nil || reply.By != memory.ByAssistant || strings.Contains(reply.Text, "**User:**") {
		t.Fatalf("the reply is not a chunk of the assistant's own: %+v", reply)
	}
	if asked == nil || asked.By != "" || strings.Contains(asked.Text, "Monday") {
		t.Errorf("the user's half of the turn is not a chunk of the user's own: %+v", asked)
	}
}

// `memory search car`: the decision the user wrote down ranks above a chat
// reply that says "car" more often.
func TestUsersDecisionOutranksChatReply(t *testing.T) {
	home := workspace(t, map[string]string{
		"MEMORY.md": "# Memory\n\n## Decisions\n\n- Sell the car in spring and take the train to work.\n",
		"logs/2026-11-21.md": turnLog("2026-11-21", "20:15", "thinking about transport",
			"A car gives you freedom; with a car you can also keep the car for trips."),
	})
	ix, _ := open(t, home)
	hits := search(t, ix, "car", SearchOptions{})
	if len(hits) == 0 || hits[0].Path != "MEMORY.md" {
		t.Fatalf("hits %v, want MEMORY.md's decision first", paths(hits))
	}
}

// A turn's reply that quotes a "**User:**" line is still the assistant's
// from its mark to the end.
func TestTurnReplyQuotingUserStaysAssistants(t *testing.T) {
	home := workspace(t, map[string]string{
		"logs/2026-11-22.md": turnLog("2026-11-22", "08:00", "what did I say about tea",
			"You said:\n\n**User:** green tea only after lunch"),
	})
	ix, _ := open(t, home)
	for _, h := range search(t, ix, "green tea lunch", SearchOptions{}) {
		if strings.Contains(h.Text, "green tea only") && h.By != memory.ByAssistant {
			t.Errorf("the reply's quoted line is counted the user's: %+v", h)
		}
	}
}
