package mcp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// While one UpdateConfig holds mcp.json, between its read and its rename,
// a second one does not get in: it reads the file only once the first has
// written it, so both servers are kept. (Without the lock the second reads
// the file before the first has saved, and one of the two adds is lost.)
func TestUpdateConfigLetsOneWriterInAtATime(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), ConfigFile)
	entered := make(chan struct{})
	var second sync.WaitGroup
	var secondErr error
	err := UpdateConfig(ctx, path, func(c *Config) error {
		c.Servers["first"] = Server{Name: "first", Command: "first-server"}
		second.Add(1)
		go func() {
			defer second.Done()
			secondErr = UpdateConfig(ctx, path, func(c *Config) error {
				close(entered)
				c.Servers["second"] = Server{Name: "second", Command: "second-server"}
				return nil
			})
		}()
		// Give the second writer a chance to get in; it must not. (The
		// wait bounds how long the test looks, it asserts no speed.)
		select {
		case <-entered:
			t.Error("a second UpdateConfig changed mcp.json while the first held it")
		case <-time.After(300 * time.Millisecond):
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	second.Wait()
	if secondErr != nil {
		t.Fatal(secondErr)
	}
	c, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Names(); len(got) != 2 {
		t.Errorf("servers after two adds: %v, want first and second", got)
	}
}

// lockChildEnv makes the test binary one of the parallel writers of
// TestUpdateConfigFromParallelProcesses.
const lockChildEnv = "MCP_CONFIG_LOCK_CHILD"

// Several agent processes adding servers to the same mcp.json at once (a
// script running `agent mcp add` in parallel) lose none: each add is made
// under the file's lock, against what the others wrote.
func TestUpdateConfigFromParallelProcesses(t *testing.T) {
	const procs, adds = 4, 10
	path := filepath.Join(t.TempDir(), ConfigFile)
	cmds := make([]*exec.Cmd, procs)
	for i := range cmds {
		cmd := exec.Command(os.Args[0], "-test.run=^TestConfigLockChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), lockChildEnv+"="+path, "MCP_CONFIG_LOCK_ID="+strconv.Itoa(i), "MCP_CONFIG_LOCK_ADDS="+strconv.Itoa(adds))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer process: %v", err)
		}
	}
	c, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < procs; i++ {
		for j := 0; j < adds; j++ {
			if _, ok := c.Servers[fmt.Sprintf("p%d-s%d", i, j)]; !ok {
				t.Errorf("server p%d-s%d was lost", i, j)
			}
		}
	}
	if len(c.Servers) != procs*adds {
		t.Errorf("%d servers, want %d", len(c.Servers), procs*adds)
	}
}

// TestConfigLockChild is one writer process of
// TestUpdateConfigFromParallelProcesses; run directly, it does nothing.
func TestConfigLockChild(t *testing.T) {
	path := os.Getenv(lockChildEnv)
	if path == "" {
		t.Skip("a writer process of TestUpdateConfigFromParallelProcesses")
	}
	id := os.Getenv("MCP_CONFIG_LOCK_ID")
	adds, _ := strconv.Atoi(os.Getenv("MCP_CONFIG_LOCK_ADDS"))
	for j := 0; j < adds; j++ {
		name := fmt.Sprintf("p%s-s%d", id, j)
		err := UpdateConfig(context.Background(), path, func(c *Config) error {
			c.Servers[name] = Server{Name: name, Command: "server-" + name}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
