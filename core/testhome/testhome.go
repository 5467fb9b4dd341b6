// Package testhome points a test binary at a home of its own: HOME and
// XDG_CACHE_HOME name a new temporary folder, so that code a test runs
// (devsync's copies-seen stamps, anything under ~/.cache/agent or ~) never
// writes under the user's real home. A package's TestMain calls Isolate
// (or Run) before m.Run. Tests only import it.
package testhome

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Isolate makes the temporary home and sets the environment; the function
// it returns removes the folder. The go tool a test runs (core's TestLayers
// lists packages) keeps its own caches and settings: GOCACHE, GOPATH,
// GOMODCACHE and GOENV are set to what they were, which a new HOME would
// have moved.
func Isolate() (func(), error) {
	if goTool, err := exec.LookPath("go"); err == nil {
		out, err := exec.Command(goTool, "env", "-json", "GOCACHE", "GOPATH", "GOMODCACHE", "GOENV").Output()
		if err != nil {
			return nil, err
		}
		var env map[string]string
		if err := json.Unmarshal(out, &env); err != nil {
			return nil, err
		}
		for k, v := range env {
			if v != "" {
				os.Setenv(k, v)
			}
		}
	}
	dir, err := os.MkdirTemp("", "agent-test-home-")
	if err != nil {
		return nil, err
	}
	os.Setenv("HOME", dir)
	os.Setenv("XDG_CACHE_HOME", filepath.Join(dir, ".cache"))
	return func() { os.RemoveAll(dir) }, nil
}

// Run runs a package's tests with a home of their own: its TestMain's
// os.Exit(testhome.Run(m)).
func Run(m *testing.M) int {
	done, err := Isolate()
	if err != nil {
		os.Stderr.WriteString("testhome: " + err.Error() + "\n")
		return 1
	}
	defer done()
	return m.Run()
}
