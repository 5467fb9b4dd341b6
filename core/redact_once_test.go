package core

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agent/core/ollamatest"
	"agent/core/window"
	"agent/memory"
	"agent/memory/secrets"
)

// A turn redacts each of its texts once, in parts (the message at its
// start, the reply at its end, the request message by message), and keeps
// the bytes that redacting the whole gave: the request kept for the cache
// check is the request sent, redacted whole; the message and the reply are
// stored redacted; the log holds the turn's entry redacted whole. One
// difference, on purpose: a message that ends in a credential's value (a
// `password=` one, whose value runs to the next space) no longer takes the
// NUL after it, and the next message's role, into its marker.
func TestRedactedOnceKeepsTheBytes(t *testing.T) {
	ctx := context.Background()
	f := newChatFixture(t, true)
	tok := githubToken("Q7dLw2XkR9vPz4TmB8cY1nHs6JfA3e")
	f.write(SoulFile, "# Soul\n\nThe deploy key is "+tok+"; never say it.\n")
	f.reopen()
	const pw = "password=hunter2xyz"
	reply := "Noted: the token " + tok + " and your " + pw + " are safe with me."
	f.srv.Default(ollamatest.Text(reply))
	s := f.session("keys")
	messages := []string{"my token is " + tok + " and my " + pw + " for the box", "and once more, the token " + tok + " please", "the last one: " + pw}
	for i, message := range messages {
		if _, err := f.chat.Turn(ctx, s, message, nil); err != nil {
			t.Fatal(err)
		}
		reqs := f.srv.Requests()
		var sent, each []Message
		for _, m := range reqs[len(reqs)-1].Messages {
			sent = append(sent, Message{Role: m.Role, Content: m.Content})
			redacted, _ := secrets.Redact(m.Content)
			each = append(each, Message{Role: m.Role, Content: redacted})
		}
		if !strings.Contains(sent[len(sent)-1].Content, message) {
			t.Fatal("the model was not sent the message as the user wrote it")
		}
		want, _ := secrets.Redact(window.RequestText(sent))
		if i == len(messages)-1 { // it ends in the password's value
			if want == window.RequestText(each) {
				t.Fatal("the last message should end in a value that takes the NUL after it")
			}
			want = window.RequestText(each)
		}
		kept, _, err := f.chat.Sessions.LastRequest(ctx, *s)
		if err != nil {
			t.Fatal(err)
		}
		if at := window.SharedPrefix(kept, want); kept != want {
			t.Errorf("turn %d: the request kept differs from the request sent, redacted, at byte %d of %d: %q", i, at, len(want), kept[at:])
		}
		stored, err := f.chat.Sessions.Messages(ctx, *s)
		if err != nil {
			t.Fatal(err)
		}
		user, last := stored[len(stored)-2], stored[len(stored)-1]
		if want, _ := secrets.Redact(message); user.Role != "user" || user.Content != want {
			t.Errorf("message stored as %q, want %q", user.Content, want)
		}
		if want, _ := secrets.Redact(reply); last.Role != "assistant" || last.Content != want {
			t.Errorf("reply stored as %q, want %q", last.Content, want)
		}
		log, err := os.ReadFile(filepath.Join(f.home, user.Logged.Path))
		if err != nil {
			t.Fatal(err)
		}
		if entry, _ := secrets.Redact(memory.TurnEntry(message, "Atlas", reply)); !strings.Contains(string(log), entry) {
			t.Errorf("the log does not hold the entry redacted whole %q:\n%s", entry, log)
		}
	}
}
