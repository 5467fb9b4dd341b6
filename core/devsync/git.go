package devsync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// ErrNoGit is returned when no git binary is found: sync uses the user's
// own git, with their remotes and credentials, and nothing else.
var ErrNoGit = errors.New("sync needs git, and none was found in PATH (install git, then run agent sync again)")

// git runs the user's git in a workspace.
type git struct {
	bin string
	dir string
	env []string
	// hide is what no message may carry, each followed by what is said
	// instead (a remote URL's credentials, see secrets).
	hide []string
}

// scrub is s with every secret of g's remote URLs replaced.
func (g *git) scrub(s string) string {
	if len(g.hide) == 0 {
		return s
	}
	return strings.NewReplacer(g.hide...).Replace(s)
}

// hideURL makes every later message of g say url redacted.
func (g *git) hideURL(url string) {
	g.hide = append(g.hide, secrets(url)...)
}

func newGit(dir string) (*git, error) {
	bin, err := exec.LookPath("git")
	if err != nil {
		return nil, ErrNoGit
	}
	// No pager, no prompt on a terminal sync is not reading from, and
	// messages in one language so what is parsed stays parseable. No hook
	// runs (a hook is code, and sync runs only git), links are written as
	// files (a fetched tree with one is refused anyway, see checkTree), and
	// no protocol that runs a command is used.
	env := append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "LC_ALL=C", "GIT_MERGE_AUTOEDIT=no",
		"GIT_CONFIG_COUNT=3",
		"GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0="+os.DevNull,
		"GIT_CONFIG_KEY_1=core.symlinks", "GIT_CONFIG_VALUE_1=false",
		"GIT_CONFIG_KEY_2=protocol.ext.allow", "GIT_CONFIG_VALUE_2=never")
	return &git{bin: bin, dir: dir, env: env}, nil
}

// run runs git with args and returns its stdout; a failure carries git's
// own words.
func (g *git) run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, g.bin, args...)
	cmd.Dir = g.dir
	cmd.Env = g.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = strings.TrimSpace(out.String())
		}
		if msg == "" {
			msg = err.Error()
		}
		return out.String(), &gitError{args: args, msg: g.scrub(msg)}
	}
	return out.String(), nil
}

// ok runs git and says whether it exited 0, for questions (does this ref
// exist?) whose "no" is an exit status.
func (g *git) ok(ctx context.Context, args ...string) bool {
	_, err := g.run(ctx, args...)
	return err == nil
}

type gitError struct {
	args []string
	msg  string
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: %s", e.args[0], e.msg)
}
