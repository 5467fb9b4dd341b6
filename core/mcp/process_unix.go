//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// killProcessGroup kills the server's whole process group.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
