package core

import (
	"testing"

	"agent/core/devsync"
	"agent/core/forget"
	"agent/core/importer"
	"agent/core/mcp"
	"agent/index"
	"agent/memory"
)

// Every machine-local file, named by the package that owns it, is one sync
// never shares: dropping a name from LocalFiles (or an owner renaming its
// file) fails here. What is not machine-local still travels.
func TestOwnedLocalFilesStayLocal(t *testing.T) {
	for _, rel := range []string{
		StateFile, StateFile + "-wal", StateFile + "-shm",
		index.FileName, index.FileName + "-wal", index.RebuildPrefix + "123",
		index.VouchSocket, ChatHistoryFile,
		mcp.LogDir + "/github.log", mcp.ConfigFile,
		forget.RecoveryDir + "/journal.json",
		memory.PendingAppendFile, memory.MonitorCookiePrefix + "42-1",
		importer.StagingPrefix + "abc", RemoteNoticeFile,
	} {
		if !devsync.LocalOnly(rel) {
			t.Errorf("%s is shared by sync; it is machine-local", rel)
		}
	}
	for _, rel := range []string{MemoryFile, SoulFile, LogsDir + "/2026-11-28.md", "notes/" + StateFile + ".md"} {
		if devsync.LocalOnly(rel) {
			t.Errorf("%s is kept from sync; it is shared", rel)
		}
	}
}
