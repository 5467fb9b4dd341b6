package core

import (
	"agent/core/devsync"
	"agent/core/forget"
	"agent/core/importer"
	"agent/core/mcp"
	"agent/index"
	"agent/memory"
)

// ChatHistoryFile is the chat's line-editing history (cmd/agent's REPL):
// what this device's user typed, machine-local.
const ChatHistoryFile = ".chat_history"

// LocalFiles are the workspace's machine-local files that sync never
// shares, as devsync.Ignored's patterns, each name taken from the package
// that owns the file (issue 49: one list, owned where the files are).
// Devsync cannot import most of these packages (forget and core are not
// below it), so core hands the list in as it starts; agent mcp serve's
// token, above core, is handed in by core/mcpserve itself.
func LocalFiles() []string {
	return []string{
		"/" + StateFile + "*", // and its -wal, -shm
		"/" + index.FileName + "*",
		"/" + index.RebuildPrefix + "*",
		"/" + index.VouchSocket,
		"/" + ChatHistoryFile,
		"/" + mcp.LogDir + "/",
		"/" + mcp.ConfigFile,
		"/" + forget.RecoveryDir + "/",
		"/" + memory.PendingAppendFile,
		"/" + memory.MonitorCookiePrefix + "*",
		"/" + importer.StagingPrefix + "*",
		"/" + RemoteNoticeFile,
	}
}

func init() { devsync.Local(LocalFiles()...) }
