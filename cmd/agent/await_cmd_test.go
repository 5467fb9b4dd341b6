package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/rogpeppe/go-internal/testscript"
)

// awaitBound bounds a wait of cmdAwait: the event normally comes in
// milliseconds, and one that never comes is a failure, never a slow pass.
const awaitBound = 2 * time.Minute

// cmdAwait waits in a transcript for an event another process makes, as it
// happens (inotify through fsnotify), instead of a loop of sleeps:
//
//	await exists PATH         until PATH exists (a socket, a pid file)
//	await line FILE REGEXP    until a line of FILE matches REGEXP (a
//	                          background command's stderr sent to FILE)
func cmdAwait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || args[0] == "exists" && len(args) != 2 || args[0] == "line" && len(args) != 3 {
		ts.Fatalf("usage: await exists PATH | await line FILE REGEXP")
	}
	path := ts.MkAbs(args[1])
	var done func() bool
	switch args[0] {
	case "exists":
		done = func() bool { _, err := os.Lstat(path); return err == nil }
	case "line":
		re, err := regexp.Compile(args[2])
		ts.Check(err)
		done = func() bool { return hasLine(path, re) }
	default:
		ts.Fatalf("usage: await exists PATH | await line FILE REGEXP")
	}
	if err := awaitFile(path, done); err != nil {
		ts.Fatalf("await %s %s: %v", args[0], args[1], err)
	}
}

// awaitFile returns once done says so, asking it at the start and after
// every change in path's folder.
func awaitFile(path string, done func() bool) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	// Watched before the first look: nothing that happens after it is missed.
	if err := w.Add(filepath.Dir(path)); err != nil {
		return err
	}
	bound := time.NewTimer(awaitBound)
	defer bound.Stop()
	for !done() {
		select {
		case <-w.Events:
		case err := <-w.Errors:
			return err
		case <-bound.C:
			return errAwaitBound
		}
	}
	return nil
}

var errAwaitBound = errors.New("not within " + awaitBound.String())

// hasLine says whether a line of the file at path matches re.
func hasLine(path string, re *regexp.Regexp) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if re.Match(sc.Bytes()) {
			return true
		}
	}
	return false
}
