package memory

import "strings"

// userMark opens the user's half of a chat turn in the daily log.
const userMark = "**User:** "

// ByAssistant is a chunk's By when its words are the assistant's: the reply
// half of a logged chat turn (docs/decisions-memory-write.md, "What a turn
// logs"). The user's own words, a note or their half of a turn, have "".
const ByAssistant = "assistant"

// TurnEntry is a chat turn as the daily log keeps it: the user's message,
// a blank line, then the reply under the assistant's name. The reply's mark
// ("**Atlas:** ", any name but User) opening a paragraph is what tells the
// index where the assistant's words start (turnReply).
func TurnEntry(message, who, reply string) string {
	return userMark + strings.TrimSpace(message) + "\n\n**" + who + ":** " + strings.TrimSpace(reply)
}

// TurnProbe is what a logged turn holds of message: its user mark and the
// message's first line, enough to find the turn again (replies repeat: a
// model's "Noted." would match many).
func TurnProbe(message string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(message), "\n")
	return userMark + strings.TrimSpace(first)
}

// TurnHeadingMark separates a logged turn's time from its session name in
// its heading: "### 09:30 · session NAME".
const TurnHeadingMark = " · session "

// isTurnHeading reports a logged chat turn's heading text, "09:30 · session
// NAME".
func isTurnHeading(h string) bool { return strings.Contains(h, TurnHeadingMark) }

// turnReply reports whether line opens the reply of a logged turn: a
// speaker's mark, "**NAME:** ", whose name is not User. Everything from the
// first such line of a turn to its end is the assistant's: a reply that
// quotes a "**User:**" line stays the assistant's, and a message that holds
// such a mark only has its rest counted as the assistant's, which ranks it
// lower but never passes the assistant's words off as the user's.
func turnReply(line string) bool {
	line = strings.TrimLeft(line, " \t")
	rest, ok := strings.CutPrefix(line, "**")
	if !ok {
		return false
	}
	name, _, ok := strings.Cut(rest, ":**")
	if !ok || name == "" || len(name) > 64 || strings.ContainsAny(name, "*\n") {
		return false
	}
	return !strings.EqualFold(name, "User") // older logs wrote "**user:**"
}
