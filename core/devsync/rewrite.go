package devsync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/renameio/v2"
)

// rewriteMark asks the next sync to rewrite the shared history. A forget
// writes it: the files no longer hold the phrase, but every older commit
// still does, here, on the remote and on every device.
const rewriteMark = ".sync-rewrite"

// MarkRewrite records that the next sync must rewrite the shared history
// (after a forget changed files). Outside a repository it does nothing.
func MarkRewrite(home string) error {
	if _, err := os.Stat(filepath.Join(home, ".git")); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := renameio.WriteFile(filepath.Join(home, rewriteMark), []byte("forget\n"), 0o600); err != nil {
		return fmt.Errorf("sync: ask the next sync to rewrite the history: %w", err)
	}
	return nil
}

func rewriteWanted(home string) bool {
	_, err := os.Stat(filepath.Join(home, rewriteMark))
	return err == nil
}

// squash replaces the branch's history by one commit of its current tree:
// after a forget, no commit may hold the forgotten text, and the sync
// history is transport, not a record (revisions live in state.db). The
// work tree and index are untouched: the tree is the same.
func squash(ctx context.Context, g *git, branch string) error {
	id, err := g.run(ctx, "commit-tree", "HEAD^{tree}", "-m", "agent sync: history rewritten after a forget")
	if err != nil {
		return fmt.Errorf("sync: rewrite the history: %w", err)
	}
	if _, err := g.run(ctx, "update-ref", "refs/heads/"+branch, strings.TrimSpace(id)); err != nil {
		return fmt.Errorf("sync: rewrite the history: %w", err)
	}
	return nil
}

// prune drops every object no branch holds any more (reflogs, ORIG_HEAD
// and the like included), so the forgotten text leaves this device's
// repository too.
func prune(ctx context.Context, g *git) error {
	for _, ref := range []string{"ORIG_HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD"} {
		g.run(ctx, "update-ref", "-d", ref)
	}
	if _, err := g.run(ctx, "reflog", "expire", "--expire=now", "--expire-unreachable=now", "--all"); err != nil {
		return fmt.Errorf("sync: prune the old history: %w", err)
	}
	if _, err := g.run(ctx, "gc", "-q", "--prune=now"); err != nil {
		return fmt.Errorf("sync: prune the old history: %w", err)
	}
	return nil
}

// Refs that keep an adoption's two sides reachable until it is committed:
// a sync killed between the reset and the commit finds them and finishes,
// so this device's changes are never left only in a reflog.
const (
	adoptHead = "refs/agent/adopt-head" // this device's branch before the adoption
	adoptOld  = "refs/agent/adopt-old"  // the remote branch as fetched before it was rewritten
)

// adopt moves this device onto a history another device rewrote (old, the
// remote branch as last fetched, is no ancestor of new): the changes made
// here since the last common commit are merged, by the memory rules, onto
// the rewritten branch, so a removal the rewrite carries (the forgotten
// text) stays removed and what this device wrote since stays written.
//
// It runs holding the work tree's locks (workTree) and commits first what
// the work tree holds, so the reset it makes drops nothing written since.
func adopt(ctx context.Context, g *git, o Options, old, new string) error {
	if _, err := commit(ctx, g, o.Device, o.Warn); err != nil {
		return err
	}
	for _, kv := range [][2]string{{adoptHead, "HEAD"}, {adoptOld, old}} {
		if _, err := g.run(ctx, "update-ref", kv[0], kv[1]); err != nil {
			return fmt.Errorf("sync: adopt the rewritten history: %w", err)
		}
	}
	return finishAdopt(ctx, g, new)
}

// resumeAdopt finishes an adoption a killed sync left half done. Killed
// before the branch moved, the branch (with what the work tree held, just
// committed) is this device's side and the fetched rewrite the target;
// killed after, the branch is on the rewrite already and is the target.
// The caller checks that adoptHead is there, and holds workTree.
func resumeAdopt(ctx context.Context, g *git, upstream string) error {
	if _, err := commit(ctx, g, "", nil); err != nil {
		return err
	}
	up := revision(ctx, g, upstream)
	target := "HEAD"
	if up != "" && !g.ok(ctx, "merge-base", "--is-ancestor", up, "HEAD") {
		if _, err := g.run(ctx, "update-ref", adoptHead, "HEAD"); err != nil {
			return fmt.Errorf("sync: adopt the rewritten history: %w", err)
		}
		target = up
	}
	if err := finishAdopt(ctx, g, target); err != nil {
		return err
	}
	// The rewrite (checked before the adoption began) is what this device
	// synced last now.
	if up != "" {
		if _, err := g.run(ctx, "update-ref", syncedRef, up); err != nil {
			return fmt.Errorf("sync: %w", err)
		}
	}
	return nil
}

// finishAdopt merges the saved branch's own changes onto new.
func finishAdopt(ctx context.Context, g *git, new string) error {
	new = revision(ctx, g, new)
	base, err := g.run(ctx, "merge-base", adoptHead, adoptOld)
	if err != nil {
		return fmt.Errorf("sync: the remote's history was rewritten and shares nothing with this device's: %w", err)
	}
	base = strings.TrimSpace(base)
	names, err := g.run(ctx, "diff", "--name-only", "--no-renames", base, adoptHead)
	if err != nil {
		return err
	}
	type version struct {
		data []byte
		ok   bool
	}
	blob := func(rev, rel string) version {
		out, err := g.run(ctx, "cat-file", "blob", rev+":"+rel)
		return version{[]byte(out), err == nil}
	}
	type local struct {
		rel                string
		base, ours, theirs version
	}
	var mine []local
	for _, rel := range strings.Split(strings.TrimSpace(names), "\n") {
		if rel != "" {
			mine = append(mine, local{rel, blob(base, rel), blob(adoptHead, rel), blob(new, rel)})
		}
	}
	if _, err := g.run(ctx, "reset", "-q", "--hard", new); err != nil {
		return fmt.Errorf("sync: adopt the rewritten history: %w", err)
	}
	for _, l := range mine {
		path := filepath.Join(g.dir, filepath.FromSlash(l.rel))
		switch {
		case !l.ours.ok: // removed here
			if l.theirs.ok && (!l.base.ok || string(l.theirs.data) != string(l.base.data)) {
				continue // changed there: kept
			}
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			continue
		case !l.theirs.ok && l.base.ok && string(l.ours.data) == string(l.base.data):
			continue // removed there, untouched here
		}
		data := l.ours.data
		if l.theirs.ok {
			var b []byte
			if l.base.ok {
				b = l.base.data
			}
			data = Merge(l.rel, b, l.ours.data, l.theirs.data).Data
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		if err := renameio.WriteFile(path, data, 0o600); err != nil {
			return err
		}
	}
	// git's reset wrote the rewritten branch's files by the umask.
	if err := narrowChanged(ctx, g, base); err != nil {
		return err
	}
	if _, err := g.run(ctx, "add", "-A"); err != nil {
		return err
	}
	if !g.ok(ctx, "diff", "--cached", "--quiet") {
		if _, err := g.run(ctx, "commit", "-q", "-m", "agent sync: this device's changes on the rewritten history"); err != nil {
			return err
		}
	}
	for _, ref := range []string{adoptHead, adoptOld} {
		if _, err := g.run(ctx, "update-ref", "-d", ref); err != nil {
			return fmt.Errorf("sync: adopt the rewritten history: %w", err)
		}
	}
	return nil
}
