package mcpserve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A link swapped in for the token file between its check and its read is
// never read: the file checked is the file read (opened without following
// a link, checked through the open file). Reading by path after checking
// by path gave the link's target here.
func TestTokenFileSwappedForALinkIsNotRead(t *testing.T) {
	home, elsewhere := t.TempDir(), t.TempDir()
	path := filepath.Join(home, TokenFile)
	kept, planted := strings.Repeat("a", 64), strings.Repeat("b", 64)
	if err := os.WriteFile(path, []byte(kept+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(elsewhere, "t")
	if err := os.WriteFile(target, []byte(planted+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tokenOpened = func() {
		if err := os.Remove(path); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Error(err)
		}
	}
	defer func() { tokenOpened = func() {} }()
	tok, _, err := Token(home, "")
	if err != nil || tok != kept {
		t.Errorf("token %q, %v; want the file that was checked (%q)", tok, err, kept)
	}
	// Once the link is in place, it is refused.
	tokenOpened = func() {}
	if _, _, err := Token(home, ""); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a linked token file: %v", err)
	}
}
