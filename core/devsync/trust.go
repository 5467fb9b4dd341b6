package devsync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/google/renameio/v2"

	"agent/memory/printable"
)

// ErrRefused is what the remote holds that this device never takes: a
// machine-local path, a link, a path inside .git. Nothing was changed here.
var ErrRefused = errors.New("refused")

// LocalOnly says whether the workspace path rel (a slash path) stays on
// the device that has it: it matches Ignored, or it is inside a .git
// folder. The program decides it, not a .gitignore a remote can change,
// and it is checked both ways: in every set sync commits, and in every tree
// it fetches. Names are compared without case (a STATE.DB is state.db on
// a macOS disk).
func LocalOnly(rel string) bool {
	parts := strings.Split(strings.ToLower(rel), "/")
	for _, p := range parts {
		if p == ".git" {
			return true
		}
	}
	for _, pat := range Ignored {
		p, anchored := strings.CutPrefix(pat, "/")
		p = strings.TrimSuffix(p, "/")
		if anchored {
			if m, _ := path.Match(p, parts[0]); m {
				return true
			}
			continue
		}
		for _, c := range parts {
			if m, _ := path.Match(p, c); m {
				return true
			}
		}
	}
	return false
}

// writeExclude writes Ignored into the repository's own .git/info/exclude:
// with the .gitignore gone (a remote commit can delete it), git still
// leaves the machine-local files alone. It writes infoAttributes too.
func writeExclude(home string) error {
	if err := writeInfo(home, "exclude", ignoreHeader+"\n"+strings.Join(Ignored, "\n")+"\n"); err != nil {
		return err
	}
	return writeInfo(home, "attributes", infoAttributes)
}

// infoAttributes is .git/info/attributes, which git reads before every
// .gitattributes of the tree (highest precedence) and no fetch can change:
// whatever the remote's .gitattributes says (a [attr] macro included), no
// filter, merge or diff driver is selected but agent's, and no eol, text,
// ident or encoding rewrite touches the bytes. "!attr" makes an attribute
// unspecified again, so git behaves as with no .gitattributes at all (the
// text merge, content-detected binaries), not as "-attr" would (binary).
var infoAttributes = "# agent: a fetched .gitattributes selects no filter, driver or rewrite\n" +
	"* !filter !merge !diff !text !eol !crlf !ident !working-tree-encoding\n" +
	strings.Join(Attributes, "\n") + "\n"

// writeInfo writes a file of the repository's own .git/info, which no
// fetch can change, only when it differs: an unchanged sync reads one
// small file.
func writeInfo(home, name, want string) error {
	p := filepath.Join(home, ".git", "info", name)
	if b, err := os.ReadFile(p); err == nil && string(b) == want {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	if err := renameio.WriteFile(p, []byte(want), 0o600); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	return nil
}

// treeEntry is one line of git's raw listing: a path and its mode.
type treeEntry struct {
	mode, path string
}

// refusal says why a path is never taken, or "" when it may be.
func refusal(e treeEntry) string {
	switch {
	case LocalOnly(e.path):
		return "machine-local: it stays on each device"
	case e.mode == "120000":
		return "a symbolic link: sync takes only regular files"
	case e.mode == "160000":
		return "a submodule: sync takes only regular files"
	case e.mode != "100644" && e.mode != "100755":
		return "not a regular file"
	}
	return ""
}

// checkTree refuses a fetched commit whose tree holds what this device
// never takes, before anything of it reaches the work tree: a path that
// stays on each device (state.db, mcp.json, …, anything in .git), a link,
// a submodule. The remote's tree is untrusted input; a refused one leaves
// this device as it was, and the next sync checks again.
func checkTree(ctx context.Context, g *git, rev string) error {
	out, err := g.run(ctx, "ls-tree", "-r", "-z", "--full-tree", rev)
	if err != nil {
		return fmt.Errorf("sync: read the remote's tree: %w", err)
	}
	var bad []string
	for _, rec := range strings.Split(out, "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		mode, _, _ := strings.Cut(meta, " ")
		if why := refusal(treeEntry{mode, p}); why != "" {
			bad = append(bad, printable.Escape(p)+" ("+why+")")
		}
	}
	if len(bad) == 0 {
		return nil
	}
	if len(bad) > 5 {
		bad = append(bad[:5], fmt.Sprintf("and %d more", len(bad)-5))
	}
	return fmt.Errorf("sync: the remote's branch holds what this device never takes: %s; nothing was changed here. Remove them from the remote, or replace the remote's branch with this device's: agent sync --keep-local: %w",
		strings.Join(bad, ", "), ErrRefused)
}

// unstageRefused takes out of the index what this device must never send
// (a machine-local file git had tracked, a link), keeping the files, and
// says what it left out. It looks only when something is staged.
func unstageRefused(ctx context.Context, g *git, warn func(string)) error {
	out, err := g.run(ctx, "diff", "--cached", "--raw", "-z", "--no-renames")
	if err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	recs := strings.Split(out, "\x00")
	var drop []string
	for i := 0; i+1 < len(recs); i += 2 {
		f := strings.Fields(recs[i])
		if len(f) < 5 || f[4] == "D" {
			continue
		}
		e := treeEntry{f[1], recs[i+1]}
		if why := refusal(e); why != "" {
			drop = append(drop, e.path)
			if warn != nil {
				warn(printable.Escape(e.path) + " is not shared (" + why + ")")
			}
		}
	}
	if len(drop) == 0 {
		return nil
	}
	if _, err := g.run(ctx, append([]string{"rm", "-q", "--cached", "--"}, drop...)...); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	return nil
}

// narrowModes takes group and other permissions off the files a merge
// wrote (git writes them by the umask, 0644 for most): a workspace's files
// are its owner's only, and a merge never widens a mode. Links and missing
// files are passed over.
func narrowModes(home string, files []string) error {
	for _, rel := range files {
		p := filepath.Join(home, filepath.FromSlash(rel))
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 == 0 {
			continue
		}
		if err := os.Chmod(p, fi.Mode().Perm()&0o700); err != nil {
			return fmt.Errorf("sync: %w", err)
		}
	}
	return nil
}
