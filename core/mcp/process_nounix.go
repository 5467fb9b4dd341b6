//go:build !unix

package mcp

import "os/exec"

// setProcessGroup has no process groups to use here; the server exits when
// its standard input closes.
func setProcessGroup(cmd *exec.Cmd) {}

// killProcessGroup kills the server itself.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
