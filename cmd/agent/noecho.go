//go:build linux || darwin

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// quietTypeAhead stops the terminal echoing what is typed while a reply
// streams, and returns what puts the echo back. The keys are not lost: the
// terminal holds them (a line and its Enter too) and the line editor reads
// them at the next prompt, as a shell keeps type-ahead; they are shown
// there, not in the middle of the reply. Nothing happens when standard
// input is not a terminal with echo on.
func quietTypeAhead() (restore func()) {
	fd := int(os.Stdin.Fd())
	t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil || t.Lflag&unix.ECHO == 0 {
		return func() {}
	}
	was := *t
	t.Lflag &^= unix.ECHO
	if unix.IoctlSetTermios(fd, ioctlSetTermios, t) != nil {
		return func() {}
	}
	return func() { _ = unix.IoctlSetTermios(fd, ioctlSetTermios, &was) }
}
