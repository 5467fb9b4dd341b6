//go:build !linux && unix

package mcp

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the server in a process group of its own, so closing
// it kills its children too. There is no parent-death signal outside Linux:
// if the agent is killed with SIGKILL, the server sees its standard input
// close (the pipe's writer is gone) and an MCP stdio server exits on that.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
