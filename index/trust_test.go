//go:build linux

package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A memory file with a second hard link cannot be vouched for: an edit
// through the other name raises no inotify event in the workspace. While
// one exists the watcher answers "unsure" and a fresh search walks (and so
// finds such an edit); once the link is gone, vouching resumes.
func TestHardLinkedFileStopsVouching(t *testing.T) {
	ctx := context.Background()
	home := workspace(t, map[string]string{
		"MEMORY.md":          memoryMD,
		"logs/2026-11-20.md": "# Friday\n\nThe ferry leaves at nine.\n",
	})
	ageAll(t, home)
	ix, _ := open(t, home)
	reindex(t, ix, false)
	if err := ix.Vouchable(); err != nil {
		t.Fatalf("a plain workspace on %s: %v", home, err)
	}
	// The watcher's answer: refresh, then vouch only if nothing defeats it.
	vctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- Vouch(vctx, home, func() error {
			if _, err := ix.RefreshChanged(ctx); err != nil {
				return err
			}
			return ix.Vouchable()
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	waitVouched(t, home, true)

	other := filepath.Join(t.TempDir(), "elsewhere.md")
	if err := os.Link(filepath.Join(home, "logs/2026-11-20.md"), other); err != nil {
		t.Fatal(err)
	}
	if vouched(home, askTimeout) {
		t.Fatal("vouched for a workspace holding a hard-linked file")
	}
	if err := ix.Vouchable(); err == nil || !strings.Contains(err.Error(), "logs/2026-11-20.md has 2 hard links") {
		t.Errorf("Vouchable = %v, want the hard link named", err)
	}
	// The edit a watch on logs/ would miss, made through the other name:
	// a fresh search still finds it, since nobody vouched.
	if err := os.WriteFile(other, []byte("# Friday\n\nThe ferry leaves at ten, from pier four.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if hits := search(t, ix, "pier", SearchOptions{Fresh: true}); len(hits) != 1 {
		t.Fatalf("an edit through the hard link was not found: %v", paths(hits))
	}

	if err := os.Remove(other); err != nil {
		t.Fatal(err)
	}
	waitVouched(t, home, true)
	if err := ix.Vouchable(); err != nil {
		t.Errorf("after the link was removed: %v", err)
	}
}

// waitVouched asks until the answer is want; the watcher answers at once,
// so the deadline only bounds a failure.
func waitVouched(t *testing.T, home string, want bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); vouched(home, askTimeout) != want; {
		if time.Now().After(deadline) {
			t.Fatalf("vouched never became %v", want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Both walks, the quick one and the full one, find a hard-linked file
// anywhere in the tree, MEMORY.md included.
func TestWalksFindHardLinks(t *testing.T) {
	for _, rel := range []string{"MEMORY.md", "logs/2026-11-20.md", "logs/2026/11/2026-11-21.md"} {
		t.Run(rel, func(t *testing.T) {
			home := workspace(t, map[string]string{
				"MEMORY.md":                  memoryMD,
				"logs/2026-11-20.md":         "a\n",
				"logs/2026/11/2026-11-21.md": "b\n",
			})
			if _, _, why, _ := walkTrust(home); why != "" {
				t.Fatalf("before the link: %q", why)
			}
			if err := os.Link(filepath.Join(home, rel), filepath.Join(t.TempDir(), "x")); err != nil {
				t.Fatal(err)
			}
			if _, _, why, err := walkTrust(home); err != nil || !strings.Contains(why, rel+" has 2 hard links") {
				t.Errorf("walk: %q, %v", why, err)
			}
			if _, _, why, ok := quickDigestTrust(home); !ok || !strings.Contains(why, rel+" has 2 hard links") {
				t.Errorf("quickDigest: %q, ok %v", why, ok)
			}
		})
	}
}

// Network, cluster, FUSE and 9p filesystems are named; local ones pass.
func TestRemoteFilesystemsAreNamed(t *testing.T) {
	for fsType, want := range map[int64]string{
		unix.NFS_SUPER_MAGIC:   "logs/ is on NFS",
		unix.CIFS_SUPER_MAGIC:  "logs/ is on CIFS",
		unix.SMB2_SUPER_MAGIC:  "logs/ is on SMB",
		unix.FUSE_SUPER_MAGIC:  "logs/ is on FUSE",
		unix.V9FS_MAGIC:        "logs/ is on 9p",
		unix.EXT4_SUPER_MAGIC:  "",
		unix.TMPFS_MAGIC:       "",
		unix.BTRFS_SUPER_MAGIC: "",
		unix.XFS_SUPER_MAGIC:   "",
	} {
		got := remoteFSWhy(fsType, "logs/")
		if (want == "") != (got == "") || !strings.HasPrefix(got, want) {
			t.Errorf("f_type %#x: %q, want %q…", fsType, got, want)
		}
	}
	if why := remotePath(t.TempDir(), "tmp"); why != "" {
		t.Errorf("the test's own temporary directory: %s", why)
	}
}
