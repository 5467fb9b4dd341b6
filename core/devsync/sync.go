package devsync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"agent/core/journal"
	"agent/memory"
	"agent/memory/printable"
)

// Ignored is what .gitignore keeps out of the shared history: files that
// are disposable (the index, rebuilt from the notes) or belong to one
// machine (state.db and its WAL, locks, sockets, the REPL history, the MCP
// servers' logs, mcp.json and agent mcp serve's token, whose commands and
// tokens are this machine's, crash-recovery files, temporary files of
// atomic writes). Devsync lists only the names it owns or that are no
// one file's (locks, copies, temporary files); each other name is declared
// by the package that owns the file and handed in through Local, which
// core calls as it starts (core/localfiles.go).
var Ignored = []string{
	"/.*.lock",
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
	// a merge brought something in, when AfterMerge (which runs after every
	// change a fetch made and replays them too) is nil; nil when there is
	// nothing to replay.
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
	// Warn reports what sync repaired on its way (a stale lock), and what
	// it left out (a link, a machine-local file).
	Warn func(string)
	// Forgotten is the mark a forget leaves where a phrase was
	// (forget.Marker): a remote history that does not continue this
	// device's is taken only when its tree is the old one with phrases
	// replaced by it. Empty, no such history is taken.
	Forgotten string
	// KeepLocal answers a remote that does not continue what this device
	// last synced, or holds what it never takes: this device's history is
	// pushed over the remote's, which is kept here under refs/agent/kept/.
	KeepLocal bool
	// TakeRemote answers a remote that does not continue what this device
	// last synced: this device moves onto it, carrying over its changes
	// since the last sync; its former history is kept under refs/agent/kept/.
	TakeRemote bool
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
// killed at any point is completed by the next one. What it fetches is
// untrusted: a tree with a machine-local path or a link is refused
// (checkTree), and a branch that does not continue what this device last
// synced is taken only when it is verifiably a forget (verifyForget) or the
// user said which history to keep (KeepLocal, TakeRemote).
func Sync(ctx context.Context, o Options) (Report, error) {
	rep := Report{Files: []string{}}
	if o.KeepLocal && o.TakeRemote {
		return rep, fmt.Errorf("sync: keep this device's history or take the remote's, not both")
	}
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
	oldURL, hadRemote := "", false
	if out, err := g.run(ctx, "remote", "get-url", "origin"); err == nil {
		oldURL, hadRemote = strings.TrimSpace(out), true
		g.hideURL(oldURL)
	}
	if o.Remote != "" {
		g.hideURL(o.Remote)
		if err := setRemote(ctx, g, o.Remote); err != nil {
			return rep, err
		}
	}
	if rep.Committed, err = commit(ctx, g, o.Device, o.Warn); err != nil {
		return rep, err
	}
	url := oldURL
	if o.Remote != "" {
		url = o.Remote
	}
	if url == "" {
		return rep, nil // no remote yet: committed here, nothing to exchange
	}
	rep.Remote = Redact(url)
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
	if revision(ctx, g, adoptHead) != "" {
		if err := workTree(o.Home, func() error { return resumeAdopt(ctx, g, upstream) }); err != nil {
			return rep, err
		}
	}
	// What this device last synced; a workspace synced before it was
	// recorded has the remote branch as last fetched.
	synced := revision(ctx, g, syncedRef)
	prev := synced
	if prev == "" {
		prev = revision(ctx, g, upstream)
	}
	final := ""        // the remote branch as this sync leaves it
	rewritten := false // a verified rewrite: the old history may be pruned
	merged := false    // AfterMerge ran
	for round := 0; ; round++ {
		before := revision(ctx, g, "HEAD")
		if _, err := g.run(ctx, "fetch", "-q", "origin"); err != nil {
			if o.Remote != "" && round == 0 {
				restoreRemote(ctx, g, oldURL, hadRemote)
				return rep, fmt.Errorf("sync: fetch from %s: %w; the remote is not changed (still %s)", rep.Remote, err, remoteWas(oldURL, hadRemote))
			}
			return rep, fmt.Errorf("sync: fetch from %s: %w", rep.Remote, err)
		}
		cur := revision(ctx, g, upstream)
		replace := "" // the remote commit a push replaces (--keep-local)
		if cur != "" && cur != prev {
			if err := checkTree(ctx, g, cur); err != nil {
				if !o.KeepLocal {
					return rep, err
				}
				replace = cur
			}
		}
		if replace == "" && cur != "" && prev != "" && cur != prev && !g.ok(ctx, "merge-base", "--is-ancestor", prev, cur) {
			switch {
			case g.ok(ctx, "merge-base", "--is-ancestor", cur, "HEAD"):
				// The remote went back to a commit this device holds (a
				// restored backup): nothing to take; the push restores it.
			case o.KeepLocal:
				replace = cur
			case o.TakeRemote:
				ref, err := keepRef(ctx, g, "local", "HEAD")
				if err != nil {
					return rep, err
				}
				if err := workTree(o.Home, func() error { return adopt(ctx, g, o, prev, cur) }); err != nil {
					return rep, err
				}
				warn(o, "took the remote's history; this device's former history is kept under "+ref)
			default:
				ok, why, err := verifyForget(ctx, g, prev, cur, o.Forgotten)
				if err != nil {
					return rep, err
				}
				if !ok {
					return rep, diverged(prev, cur, why)
				}
				// Another device rewrote the history after a forget:
				// this one moves onto it, keeping what it wrote since.
				if err := workTree(o.Home, func() error { return adopt(ctx, g, o, prev, cur) }); err != nil {
					return rep, err
				}
				rewritten = true
			}
		}
		if replace != "" {
			ref, err := keepRef(ctx, g, "remote", replace)
			if err != nil {
				return rep, err
			}
			warn(o, "replacing the remote's branch with this device's; the remote's is kept here under "+ref)
		}
		prev, final = cur, cur
		// Nothing to merge when this device holds the remote's commit
		// already (an unchanged sync, a push of its own).
		if cur != "" && replace == "" && !g.ok(ctx, "merge-base", "--is-ancestor", cur, "HEAD") {
			if err := workTree(o.Home, func() error { return merge(ctx, g, o, upstream) }); err != nil {
				return rep, err
			}
		}
		if after := revision(ctx, g, "HEAD"); o.AfterMerge != nil && after != before {
			if err := afterMerge(ctx, g, o, before, after); err != nil {
				return rep, err
			}
			merged = true
		}
		squashed := rewriteWanted(o.Home)
		if squashed {
			if err := squash(ctx, g, branch); err != nil {
				return rep, err
			}
		}
		ahead := cur == "" || replace != ""
		if !ahead {
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
		if squashed || replace != "" {
			// Replaces the remote branch only as this sync last saw it.
			args = append(args, "--force-with-lease=refs/heads/"+branch+":"+cur)
		}
		_, err := g.run(ctx, append(args, "origin", "HEAD:refs/heads/"+branch)...)
		if err == nil {
			rep.Pushed = true
			final = revision(ctx, g, "HEAD")
			if squashed {
				if err := os.Remove(filepath.Join(o.Home, rewriteMark)); err != nil {
					return rep, fmt.Errorf("sync: %w", err)
				}
				rewritten = true
			}
			break
		}
		if round == 3 || !strings.Contains(err.Error(), "rejected") {
			if o.Remote != "" && o.Remote != oldURL {
				// A remote that takes no push is not one to sync with:
				// it is not remembered (what its fetch brought is kept).
				restoreRemote(ctx, g, oldURL, hadRemote)
				return rep, fmt.Errorf("sync: push to %s: %w; the remote is not changed (still %s)", rep.Remote, err, remoteWas(oldURL, hadRemote))
			}
			return rep, fmt.Errorf("sync: push to %s: %w", rep.Remote, err)
		}
	}
	if final != "" && final != synced {
		if _, err := g.run(ctx, "update-ref", syncedRef, final); err != nil {
			return rep, fmt.Errorf("sync: %w", err)
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
	// AfterMerge replayed the journals after every change a fetch made;
	// Replay is for a caller without it.
	if len(rep.Files) > 0 && o.Replay != nil && !merged {
		if err := o.Replay(ctx); err != nil {
			return rep, fmt.Errorf("sync: replay the journals: %w", err)
		}
	}
	return rep, nil
}

func warn(o Options, s string) {
	if o.Warn != nil {
		o.Warn(s)
	}
}

// workTree runs fn holding the locks every writer of the work tree takes
// (memory's for MEMORY.md and the logs, the journals'): a git step that
// writes files (merge, adopt) never overwrites an entry appended while it
// runs, and fn commits first what was appended before. The merge driver
// must not take them (it runs inside).
func workTree(home string, fn func() error) error {
	return memory.Locked(home, func() error { return journal.Locked(home, fn) })
}

// afterMerge runs o.AfterMerge over the files that changed between two
// commits and commits what it changed.
func afterMerge(ctx context.Context, g *git, o Options, from, to string) error {
	files, err := changed(ctx, g, from, to)
	if err != nil {
		return err
	}
	if err := o.AfterMerge(ctx, files); err != nil {
		return fmt.Errorf("sync: after the merge: %w", err)
	}
	_, err = commit(ctx, g, o.Device, o.Warn)
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
// exist or be empty, and sets the repository up as Sync does. The clone is
// made in a folder of its own beside home, checked (checkTree) before any
// file is written out, and renamed into place only when whole: a clone
// that fails leaves nothing, so it can be tried again. The workspace is
// its owner's only (0700, files 0600). The caller then initialises the
// workspace (state.db) around the files.
func Clone(ctx context.Context, url string, o Options) error {
	red := Redact(url)
	g, err := newGit(filepath.Dir(o.Home))
	if err != nil {
		return err
	}
	g.hideURL(url)
	if entries, err := os.ReadDir(o.Home); err == nil && len(entries) > 0 {
		return fmt.Errorf("init --from: %s is not empty; give a new --home for the copy (or run agent sync --remote URL in the workspace that is there)", printable.Escape(o.Home))
	}
	if err := os.MkdirAll(filepath.Dir(o.Home), 0o700); err != nil {
		return fmt.Errorf("init --from: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(o.Home), "."+filepath.Base(o.Home)+".clone-")
	if err != nil {
		return fmt.Errorf("init --from: %w", err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	if _, err := g.run(ctx, "clone", "-q", "--no-checkout", "--", url, tmp); err != nil {
		return fmt.Errorf("init --from %s: %w", red, err)
	}
	g.dir = tmp
	// Before the checkout: the fetched .gitattributes selects nothing.
	if err := writeExclude(tmp); err != nil {
		return err
	}
	// A bare remote made with `git init --bare` may name another branch as
	// its HEAD than the one pushed to it: the branch is main, or the one
	// there is.
	out, err := g.run(ctx, "for-each-ref", "--format=%(refname:strip=3)", "refs/remotes/origin/")
	if err != nil {
		return err
	}
	branches := strings.Fields(out)
	if len(branches) > 0 {
		branch := "main"
		if !slices.Contains(branches, branch) {
			branch = branches[0]
			if head, err := g.run(ctx, "symbolic-ref", "-q", "--short", "HEAD"); err == nil && slices.Contains(branches, strings.TrimSpace(head)) {
				branch = strings.TrimSpace(head)
			}
		}
		if err := checkTree(ctx, g, "origin/"+branch); err != nil {
			return fmt.Errorf("init --from %s: %w", red, err)
		}
		if _, err := g.run(ctx, "checkout", "-q", "-B", branch, "origin/"+branch); err != nil {
			return fmt.Errorf("init --from %s: %w", red, err)
		}
		if _, err := g.run(ctx, "update-ref", syncedRef, "origin/"+branch); err != nil {
			return fmt.Errorf("init --from %s: %w", red, err)
		}
	}
	to := o
	to.Home = tmp
	if _, err := setup(ctx, g, to); err != nil {
		return err
	}
	if err := ownerOnly(tmp); err != nil {
		return fmt.Errorf("init --from: %w", err)
	}
	if err := os.Rename(tmp, o.Home); err != nil {
		return fmt.Errorf("init --from: %w", err)
	}
	done = true
	return nil
}

// ownerOnly makes a new workspace its owner's only: folders 0700, files
// 0600 (git wrote them by the umask). Links are not followed.
func ownerOnly(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if p != root && d.Name() == ".git" {
				// git's objects are read-only already; the folder is
				// closed to others, so nothing in it is reachable.
				if err := os.Chmod(p, 0o700); err != nil {
					return err
				}
				return fs.SkipDir
			}
			return os.Chmod(p, 0o700)
		case d.Type().IsRegular():
			return os.Chmod(p, 0o600)
		}
		return nil
	})
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
	if err := writeExclude(o.Home); err != nil {
		return created, err
	}
	// The repository is its owner's only: a hook or a config another
	// account could write there would run as the user.
	if err := os.Chmod(filepath.Join(o.Home, ".git"), 0o700); err != nil {
		return created, fmt.Errorf("sync: %w", err)
	}
	if err := ensureLines(filepath.Join(o.Home, ".gitignore"), ignoreHeader, Ignored); err != nil {
		return created, err
	}
	if err := ensureLines(filepath.Join(o.Home, ".gitattributes"), attributesHeader, Attributes); err != nil {
		return created, err
	}
	// The driver lives in .git/config: git never runs a command a fetched
	// file names, so each device registers its own.
	// Read in one call, written only where they differ: an unchanged
	// sync starts one git for them, not three.
	have := map[string]string{}
	if out, err := g.run(ctx, "config", "--local", "-z", "--get-regexp", `^(merge\.agent\.|core\.symlinks$)`); err == nil {
		for _, rec := range strings.Split(out, "\x00") {
			if k, v, ok := strings.Cut(rec, "\n"); ok {
				have[k] = v
			}
		}
	}
	for _, kv := range [][2]string{
		{"merge.agent.name", "agent: memory files merged entry by entry and section by section"},
		{"merge.agent.driver", o.Driver},
		{"core.symlinks", "false"},
	} {
		if v, ok := have[kv[0]]; ok && v == kv[1] {
			continue
		}
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
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
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
		return fmt.Errorf("sync: remote %s: %w", Redact(url), err)
	}
	return nil
}

// restoreRemote puts origin back as it was before a --remote that failed:
// a wrong URL is not remembered.
func restoreRemote(ctx context.Context, g *git, old string, had bool) {
	if had {
		g.run(ctx, "remote", "set-url", "origin", old)
		return
	}
	g.run(ctx, "remote", "remove", "origin")
}

func remoteWas(old string, had bool) string {
	if had {
		return Redact(old)
	}
	return "none"
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
func commit(ctx context.Context, g *git, device string, warn func(string)) (bool, error) {
	if _, err := g.run(ctx, "add", "-A"); err != nil {
		return false, fmt.Errorf("sync: %w", err)
	}
	merging := g.ok(ctx, "rev-parse", "-q", "--verify", "MERGE_HEAD")
	if !merging && g.ok(ctx, "diff", "--cached", "--quiet") && g.ok(ctx, "rev-parse", "-q", "--verify", "HEAD") {
		return false, nil
	}
	// What is staged is checked whatever the .gitignore says.
	if err := unstageRefused(ctx, g, warn); err != nil {
		return false, err
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
// user's git, with the merge undone. It runs holding the work tree's locks
// (workTree): what was appended before is committed first, so neither the
// merge nor its undoing can drop it. A merge never widens a file's mode.
func merge(ctx context.Context, g *git, o Options, upstream string) error {
	if _, err := commit(ctx, g, o.Device, o.Warn); err != nil {
		return err
	}
	before := revision(ctx, g, "HEAD")
	_, err := g.run(ctx, "merge", "-q", "--no-edit", "--allow-unrelated-histories", upstream)
	if err == nil {
		return narrowChanged(ctx, g, before)
	}
	out, _ := g.run(ctx, "diff", "--name-only", "--diff-filter=U")
	files := strings.Fields(out)
	if len(files) == 0 {
		return fmt.Errorf("sync: merge: %w", err)
	}
	g.run(ctx, "merge", "--abort")
	for i := range files {
		files[i] = printable.Escape(files[i])
	}
	return fmt.Errorf("sync: both devices changed %s, which is not a memory file; merge it with git in %s (git merge %s), then run agent sync", strings.Join(files, ", "), g.dir, strings.TrimPrefix(upstream, "refs/remotes/"))
}

// narrowChanged takes group and other permissions off the files changed
// since the commit before (all of HEAD's when there was none).
func narrowChanged(ctx context.Context, g *git, before string) error {
	files, err := changed(ctx, g, before, "HEAD")
	if err != nil {
		return err
	}
	return narrowModes(g.dir, files)
}

// changed lists the files that differ between two commits, every tracked
// file when from is "".
func changed(ctx context.Context, g *git, from, to string) ([]string, error) {
	args := []string{"diff", "--name-only", "-z", "--no-renames", from, to}
	if from == "" {
		args = []string{"ls-files", "-z"}
	}
	out, err := g.run(ctx, args...)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range strings.Split(out, "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
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
			what = append(what, printable.Count(r.Entries, "log entry", "log entries"))
		}
		if r.Records > 0 {
			what = append(what, printable.Count(r.Records, "record change", "record changes"))
		}
		if len(what) == 0 { // lines edited or forgotten, none added
			what = append(what, "changes")
		}
		in = fmt.Sprintf("%s came in (%s)", strings.Join(what, " and "), printable.Count(len(r.Files), "file", "files"))
	}
	out := "nothing to push"
	if r.Pushed {
		out = "pushed"
	}
	return fmt.Sprintf("synced with %s: %s; %s", r.Remote, in, out)
}
