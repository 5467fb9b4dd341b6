package memory

import "strings"

// userMark opens the user's half of a chat turn in the daily log.
const userMark = "**User:** "

// TurnEntry is a chat turn as the daily log keeps it: the user's message,
// a blank line, then the reply under the assistant's name.
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
