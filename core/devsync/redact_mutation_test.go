package devsync

import (
	"strings"
	"testing"
)

// A message that holds a remote URL's password or token alone (a server
// or a proxy echoing it, git quoting the URL in another form) never
// carries it: every part of the URL that is a secret is scrubbed, not only
// the URL whole (issue 50: the mutant leaving the password out of secrets
// passed every other test, whose messages quoted the URL whole).
func TestScrubHidesThePasswordAlone(t *testing.T) {
	for _, tc := range []struct{ url, secret string }{
		{"https://me:hunter2@host/x.git", "hunter2"},
		{"https://ghp_TOKEN1234@host/x.git", "ghp_TOKEN1234"},
	} {
		g := &git{}
		g.hideURL(tc.url)
		msg := g.scrub("fatal: the server said: bad credentials " + tc.secret + " for " + tc.url)
		if strings.Contains(msg, tc.secret) {
			t.Errorf("%s: the message still holds the secret: %q", tc.url, msg)
		}
	}
}
