//go:build linux

package mcp

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the server in a process group of its own, so closing
// it kills the children it spawned too (npx and node servers do spawn), and
// asks the kernel to kill it when the agent dies, even by SIGKILL: no
// server outlives the agent.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
