package devsync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// Ignored is what .gitignore keeps out of the shared history: files that
// are disposable (the index, rebuilt from the notes) or belong to one
// machine (state.db and its WAL, locks, sockets, the REPL history, the MCP
// servers' logs, mcp.json and agent mcp serve's token, whose commands and tokens are this machine's,
// crash-recovery journals, temporary files of atomic writes).
var Ignored = []string{
	"/index.db*",
	"/.index.db.new-*",
	"/state.db*",
	"/.*.lock",
	"/.watch.sock",
	"/.chat_history",
	"/.mcp-logs/",
	"/mcp.json",
	"/.mcp-serve.token",
	"/.forget/",
	"/.memory.journal",
	"/.import-*",
	"/.monitor-cookie-*",
	"/" + rewriteMark,
	".*.md[0-9]*",
	".*.jsonl[0-9]*",
	"*.tmp",
}

// Attributes route memory files through the merge driver, so a manual
// `git pull` merges them as `agent sync` does.
var Attributes = []string{
	"*.md merge=agent",
	JournalDir + "/*.jsonl merge=agent",
}

const (
	ignoreHeader     = "# agent: disposable and machine-local files stay on each device"
	attributesHeader = "# agent: memory files merge by construction (agent merge-file), never with conflict markers"
	lockName         = ".sync.lock"
	lockWait         = time.Minute
)

// Options say how to sync one workspace.
type Options struct {
	Home string
	// Remote, when not empty, becomes the origin remote (added or changed).
	Remote string
	// Driver is the merge driver's command line, with git's %O %A %B %P
	// placeholders; it is written to the repository's own config at every
	// sync, so a moved binary is followed.
	Driver string
	// Replay folds the devices' journals into this device's state.db after
	// a merge brought something in; nil when there is nothing to replay.
	Replay func(context.Context) error
	// AfterMerge runs when a round's fetch changed this device's branch
	// (a merge, or moving onto a rewritten history), with the files that
	// changed, before anything is pushed: what one device forgot, the
	// merge must not bring back, and what another forgot is forgotten
	// here before this device pushes (core/forget). What it changes in
	// the work tree is committed; a rewrite it asks for (MarkRewrite)
	// squashes the history before the push.
	AfterMerge func(ctx context.Context, files []string) error
	// Device names this machine in commit messages.
	Device string
	// Warn reports what sync repaired on its way (a stale lock).
	Warn func(string)
}

// Report says what a sync did.
type Report struct {
	Created   bool     `json:"created"`   // the workspace became a repository
	Committed bool     `json:"committed"` // local changes were committed
	Remote    string   `json:"remote"`    // origin's URL, "" when there is none
	Files     []string `json:"files"`     // files the merge changed here
	Entries   int      `json:"entries"`   // log entries that came in
	Records   int      `json:"records"`   // record changes (journal lines) that came in
	Pushed    bool     `json:"pushed"`
}

// Sync commits the workspace's changes, fetches, merges with the memory
// rules and pushes. Every step is idempotent and it holds a lock, so a sync
// killed at any point is completed by the next one.
func Sync(ctx context.Context, o Options) (Report, error) {
	rep := Report{Files: []string{}}
	g, err := newGit(o.Home)
	if err != nil {
		return rep, err
	}
	unlock, err := lock(ctx, filepath.Join(o.Home, lockName))
	if err != nil {
		return rep, err
	}
	defer unlock()

	// First: a killed git's lock (.git/config.lock, index.lock) would stop
	// every step after it, setup's git config included.
	clearStaleLocks(ctx, o.Home, o.Warn)
	if rep.Created, err = setup(ctx, g, o); err != nil {
		return rep, err
	}
	if o.Remote != "" {
		if err := setRemote(ctx, g, o.Remote); err != nil {
			return rep, err
		}
	}
	if rep.Committed, err = commit(ctx, g, o.Device); err != nil {
		return rep, err
	}
	url, err := g.run(ctx, "remote", "get-url", "origin")
	if err != nil {
		return rep, nil // no remote yet: committed here, nothing to exchange
	}
	rep.Remote = strings.TrimSpace(url)
	branch, err := g.run(ctx, "symbolic-ref", "--short", "HEAD")
	if err != nil {
		return rep, fmt.Errorf("sync: the workspace repository is not on a branch (git checkout main): %w", err)
	}
	branch = strings.TrimSpace(branch)
	start, _ := g.run(ctx, "rev-parse", "HEAD")
	start = strings.TrimSpace(start)

	// A push that loses a race with another device's push fetches and
	// merges again; a few rounds settle any real pace of use.
	upstream := "refs/remotes/origin/" + branch
	if err := resumeAdopt(ctx, g, upstream); err != nil {
		return rep, err
	}
	prev := revision(ctx, g, upstream)
	rewritten := false
	for round := 0; ; round++ {
		before := revision(ctx, g, "HEAD")
		if _, err := g.run(ctx, "fetch", "-q", "origin"); err != nil {
			return rep, fmt.Errorf("sync: fetch from %s: %w", rep.Remote, err)
		}
		cur := revision(ctx, g, upstream)
		// Another device rewrote the history (after a forget): this one
		// moves onto it, keeping what it wrote since.
		if prev != "" && cur != "" && prev != cur && !g.ok(ctx, "merge-base", "--is-ancestor", prev, cur) {
			if err := adopt(ctx, g, prev, cur); err != nil {
				return rep, err
			}
			rewritten = true
		}
		prev = cur
		if cur != "" {
			if err := merge(ctx, g, upstream); err != nil {
				return rep, err
			}
		}
		if after := revision(ctx, g, "HEAD"); o.AfterMerge != nil && after != before {
			if err := afterMerge(ctx, g, o, before, after); err != nil {
				return rep, err
			}
		}
		squashed := rewriteWanted(o.Home)
		if squashed {
			if err := squash(ctx, g, branch); err != nil {
				return rep, err
			}
		}
		ahead := cur == ""
		if cur != "" {
			n, err := g.run(ctx, "rev-list", "--count", upstream+"..HEAD")
			if err != nil {
				return rep, err
			}
			ahead = strings.TrimSpace(n) != "0"
		}
		if !ahead {
			break
		}
		args := []string{"push", "-q", "-u"}
		if squashed {
			// Replaces the remote branch only as this sync last saw it.
			args = append(args, "--force-with-lease=refs/heads/"+branch+":"+cur)
		}
		_, err := g.run(ctx, append(args, "origin", "HEAD:refs/heads/"+branch)...)
		if err == nil {
			rep.Pushed = true
			if squashed {
				if err := os.Remove(filepath.Join(o.Home, rewriteMark)); err != nil {
					return rep, fmt.Errorf("sync: %w", err)
				}
				rewritten = true
			}
			break
		}
		if round == 3 || !strings.Contains(err.Error(), "rejected") {
			return rep, fmt.Errorf("sync: push to %s: %w", rep.Remote, err)
		}
	}

	end, _ := g.run(ctx, "rev-parse", "HEAD")
	if end = strings.TrimSpace(end); start != "" && end != start {
		if err := incoming(ctx, g, start, end, &rep); err != nil {
			return rep, err
		}
	}
	if rewritten {
		if err := prune(ctx, g); err != nil {
			return rep, err
		}
	}
	if len(rep.Files) > 0 && o.Replay != nil {
		if err := o.Replay(ctx); err != nil {
			return rep, fmt.Errorf("sync: replay the journals: %w", err)
		}
	}
	return rep, nil
}

// afterMerge runs o.AfterMerge over the files that changed between two
// commits and commits what it changed.
func afterMerge(ctx context.Context, g *git, o Options, from, to string) error {
	args := []string{"diff", "--name-only", "-z", "--no-renames", from, to}
	if from == "" {
		args = []string{"ls-files", "-z"}
	}
	out, err := g.run(ctx, args...)
	if err != nil {
		return err
	}
	var files []string
	for _, f := range strings.Split(out, "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	if err := o.AfterMerge(ctx, files); err != nil {
		return fmt.Errorf("sync: after the merge: %w", err)
	}
	_, err = commit(ctx, g, o.Device)
	return err
}

// revision is the commit ref names, or "" when there is none.
func revision(ctx context.Context, g *git, ref string) string {
	out, err := g.run(ctx, "rev-parse", "-q", "--verify", ref+"^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// Clone starts a second device: it clones url into home, which must not
// exist or be empty, and sets the repository up as Sync does. The caller
// then initialises the workspace (state.db) around the files.
func Clone(ctx context.Context, url string, o Options) error {
	g, err := newGit(filepath.Dir(o.Home))
	if err != nil {
		return err
	}
	if entries, err := os.ReadDir(o.Home); err == nil && len(entries) > 0 {
		return fmt.Errorf("init --from: %s is not empty; give a new --home for the copy (or run agent sync --remote %s in the workspace that is there)", o.Home, url)
	}
	if err := os.MkdirAll(filepath.Dir(o.Home), 0o700); err != nil {
		return fmt.Errorf("init --from: %w", err)
	}
	if _, err := g.run(ctx, "clone", "-q", "--", url, o.Home); err != nil {
		return fmt.Errorf("init --from %s: %w", url, err)
	}
	g.dir = o.Home
	// A bare remote made with `git init --bare` may name another branch as
	// its HEAD than the one pushed to it: the clone then checks nothing out.
	if !g.ok(ctx, "rev-parse", "-q", "--verify", "HEAD") {
		out, err := g.run(ctx, "for-each-ref", "--format=%(refname:strip=3)", "refs/remotes/origin/")
		if err != nil {
			return err
		}
		branches := strings.Fields(out)
		branch := "main"
		if !slices.Contains(branches, branch) && len(branches) > 0 {
			branch = branches[0]
		}
		if len(branches) > 0 {
			if _, err := g.run(ctx, "checkout", "-q", "-B", branch, "origin/"+branch); err != nil {
				return fmt.Errorf("init --from %s: %w", url, err)
			}
		}
	}
	_, err = setup(ctx, g, o)
	return err
}

func lock(ctx context.Context, path string) (func(), error) {
	fl := flock.New(path)
	wait, cancel := context.WithTimeout(ctx, lockWait)
	defer cancel()
	ok, err := fl.TryLockContext(wait, 50*time.Millisecond)
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil && !errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("sync: lock %s: %w", path, err)
	case !ok:
		return nil, fmt.Errorf("sync: another agent sync is still running (lock %s held)", path)
	}
	return func() { fl.Unlock() }, nil
}

// setup makes home a repository if it is not one and (again) writes what
// the merge rules need: .gitignore and .gitattributes lines, the driver in
// the repository's config, and a committer identity only when the user's
// git has none.
func setup(ctx context.Context, g *git, o Options) (created bool, err error) {
	if _, err := os.Stat(filepath.Join(o.Home, ".git")); errors.Is(err, fs.ErrNotExist) {
		if _, err := g.run(ctx, "init", "-q"); err != nil {
			return false, fmt.Errorf("sync: make %s a repository: %w", o.Home, err)
		}
		if _, err := g.run(ctx, "symbolic-ref", "HEAD", "refs/heads/main"); err != nil {
			return false, err
		}
		created = true
	}
	if err := ensureLines(filepath.Join(o.Home, ".gitignore"), ignoreHeader, Ignored); err != nil {
		return created, err
	}
	if err := ensureLines(filepath.Join(o.Home, ".gitattributes"), attributesHeader, Attributes); err != nil {
		return created, err
	}
	// The driver lives in .git/config: git never runs a command a fetched
	// file names, so each device registers its own.
	for _, kv := range [][2]string{
		{"merge.agent.name", "agent: memory files merged entry by entry and section by section"},
		{"merge.agent.driver", o.Driver},
	} {
		if _, err := g.run(ctx, "config", "--local", kv[0], kv[1]); err != nil {
			return created, err
		}
	}
	if !g.ok(ctx, "config", "user.email") {
		host := o.Device
		if host == "" {
			host = "device"
		}
		for _, kv := range [][2]string{{"user.name", "agent on " + host}, {"user.email", "agent@" + host}} {
			if _, err := g.run(ctx, "config", "--local", kv[0], kv[1]); err != nil {
				return created, err
			}
		}
	}
	return created, nil
}

// ensureLines appends to the user's file the lines it lacks, under header;
// lines the user wrote are never changed.
func ensureLines(path, header string, lines []string) error {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("sync: %w", err)
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	var add []string
	for _, l := range lines {
		if !have[l] {
			add = append(add, l)
		}
	}
	if len(add) == 0 {
		return nil
	}
	var b strings.Builder
	if len(data) > 0 && !strings.HasSuffix(string(data), "\n") {
		b.WriteString("\n")
	}
	if !have[header] {
		b.WriteString(header + "\n")
	}
	b.WriteString(strings.Join(add, "\n") + "\n")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return fmt.Errorf("sync: write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync: write %s: %w", path, err)
	}
	return f.Close()
}

func setRemote(ctx context.Context, g *git, url string) error {
	verb := "add"
	if g.ok(ctx, "remote", "get-url", "origin") {
		verb = "set-url"
	}
	if _, err := g.run(ctx, "remote", verb, "origin", url); err != nil {
		return fmt.Errorf("sync: remote %s: %w", url, err)
	}
	return nil
}

// staleWait is how long a git lock file may stay before sync takes it for
// the leftover of a killed process: a git that sync started and that
// outlived its killed parent finishes within it.
const staleWait = 3 * time.Second

// clearStaleLocks removes git's lock files left by a killed git. Sync holds
// its own lock, so no other sync is running; a lock that outlasts staleWait
// belongs to no living git operation on a workspace this size.
func clearStaleLocks(ctx context.Context, home string, warn func(string)) {
	find := func() []string {
		var locks []string
		for _, name := range []string{"index.lock", "HEAD.lock", "config.lock", "packed-refs.lock", "ORIG_HEAD.lock", "MERGE_HEAD.lock"} {
			if _, err := os.Stat(filepath.Join(home, ".git", name)); err == nil {
				locks = append(locks, filepath.Join(home, ".git", name))
			}
		}
		filepath.WalkDir(filepath.Join(home, ".git", "refs"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lock") {
				locks = append(locks, p)
			}
			return nil
		})
		return locks
	}
	deadline := time.Now().Add(staleWait)
	for len(find()) > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(100 * time.Millisecond)
	}
	for _, p := range find() {
		if os.Remove(p) == nil && warn != nil {
			warn("removed " + p + ", left by an interrupted git")
		}
	}
}

// commit records every change of the workspace, and completes a merge a
// killed sync left half done (its files are as merged: the next merge
// folds what is missing in, by the same rules).
func commit(ctx context.Context, g *git, device string) (bool, error) {
	if _, err := g.run(ctx, "add", "-A"); err != nil {
		return false, fmt.Errorf("sync: %w", err)
	}
	merging := g.ok(ctx, "rev-parse", "-q", "--verify", "MERGE_HEAD")
	if !merging && g.ok(ctx, "diff", "--cached", "--quiet") && g.ok(ctx, "rev-parse", "-q", "--verify", "HEAD") {
		return false, nil
	}
	msg := "agent sync"
	if device != "" {
		msg += " from " + device
	}
	if _, err := g.run(ctx, "commit", "-q", "--allow-empty", "-m", msg); err != nil {
		return false, fmt.Errorf("sync: commit: %w", err)
	}
	return true, nil
}

// merge merges the fetched branch; the memory files go through the merge
// driver and never conflict. A conflict in any other file is left to the
// user's git, with the merge undone.
func merge(ctx context.Context, g *git, upstream string) error {
	_, err := g.run(ctx, "merge", "-q", "--no-edit", "--allow-unrelated-histories", upstream)
	if err == nil {
		return nil
	}
	out, _ := g.run(ctx, "diff", "--name-only", "--diff-filter=U")
	files := strings.Fields(out)
	if len(files) == 0 {
		return fmt.Errorf("sync: merge: %w", err)
	}
	g.run(ctx, "merge", "--abort")
	return fmt.Errorf("sync: both devices changed %s, which is not a memory file; merge it with git in %s (git merge %s), then run agent sync", strings.Join(files, ", "), g.dir, strings.TrimPrefix(upstream, "refs/remotes/"))
}

// incoming fills in which files a merge changed here and how many log
// entries came in.
func incoming(ctx context.Context, g *git, from, to string, rep *Report) error {
	names, err := g.run(ctx, "diff", "--name-only", from, to)
	if err != nil {
		return err
	}
	rep.Files = strings.Fields(names)
	slices.Sort(rep.Files)
	diff, err := g.run(ctx, "diff", "-U0", "--no-color", from, to, "--", "logs/")
	if err != nil {
		return err
	}
	for _, l := range strings.Split(diff, "\n") {
		if strings.HasPrefix(l, "+### ") {
			rep.Entries++
		}
	}
	// Each journal line is one change to a profile record, a reminder or a
	// job, made on another device.
	diff, err = g.run(ctx, "diff", "-U0", "--no-color", from, to, "--", JournalDir+"/")
	if err != nil {
		return err
	}
	for _, l := range strings.Split(diff, "\n") {
		if strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++") {
			rep.Records++
		}
	}
	return nil
}

// Summary is the one line sync says about what came in.
func (r Report) Summary() string {
	if r.Remote == "" {
		return "committed here; no remote yet (agent sync --remote URL)"
	}
	in := "nothing new came in"
	if len(r.Files) > 0 {
		var what []string
		if r.Entries > 0 {
			what = append(what, plural(r.Entries, "log entry", "log entries"))
		}
		if r.Records > 0 {
			what = append(what, plural(r.Records, "record change", "record changes"))
		}
		if len(what) == 0 { // lines edited or forgotten, none added
			what = append(what, "changes")
		}
		in = fmt.Sprintf("%s came in (%s)", strings.Join(what, " and "), plural(len(r.Files), "file", "files"))
	}
	out := "nothing to push"
	if r.Pushed {
		out = "pushed"
	}
	return fmt.Sprintf("synced with %s: %s; %s", r.Remote, in, out)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
