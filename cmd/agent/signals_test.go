package main

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"agent/core/ollamatest"
)

type storedMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	Status  string `json:"status"`
}

// sessionMessages reads `agent --json sessions show NAME`.
func (h *harness) sessionMessages(name string) []storedMessage {
	h.t.Helper()
	var s struct {
		Messages []storedMessage `json:"messages"`
	}
	if err := json.Unmarshal([]byte(h.must("", "--json", "sessions", "show", name)), &s); err != nil {
		h.t.Fatal(err)
	}
	return s.Messages
}

// A reader that leaves (`agent chat … | head -c 20`) does not kill the
// turn: the reply is stored whole and the process ends quietly, exit 0.
// The reply is larger than a pipe's buffer, so writes after the close are
// certain to fail with EPIPE.
func TestClosedStdoutKeepsTheExchange(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	srv := h.fakeOllama()
	reply := strings.Repeat("a long answer that keeps going ", 8000) // ~240 KB
	srv.Default(ollamatest.Text(reply))
	h.must("", "-q", "init", "--agent-name", "Atlas", "--user-name", "Igor")
	cmd, _, stderr := h.command("", nil, "chat", "--session", "piped", "tell me everything")
	cmd.Stdout = nil
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 20)
	if _, err := io.ReadFull(bufio.NewReader(out), head); err != nil {
		t.Fatal(err)
	}
	out.Close() // as head does
	timer := time.AfterFunc(processTimeout, func() { cmd.Process.Kill() })
	err = cmd.Wait()
	timer.Stop()
	if err != nil {
		t.Fatalf("agent died when its reader left: %v; stderr %q", err, stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %q", stderr.String())
	}
	msgs := h.sessionMessages("piped")
	if len(msgs) != 2 || msgs[1].Content != reply || msgs[1].Status != "complete" {
		t.Fatalf("the exchange was not stored whole: %d messages", len(msgs))
	}
}

// SIGTERM and SIGHUP during a reply are handled like Ctrl-C: the partial
// reply is stored and marked, and the process ends (exit 1) on its own.
func TestTermAndHangupStoreThePartialReply(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			h := newHarness(t)
			srv := h.fakeOllama()
			srv.Default(ollamatest.Reply{Text: "the first words", Stall: true})
			h.must("", "-q", "init", "--agent-name", "Atlas", "--user-name", "Igor")
			cmd, _, stderr := h.command("", nil, "chat", "--session", "sig", "say something")
			cmd.Stdout = nil
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The partial reply has been printed: the reply is in progress.
			r := bufio.NewReader(out)
			got := ""
			for !strings.Contains(got, "the first words") {
				b, err := r.ReadByte()
				if err != nil {
					t.Fatalf("stdout ended before the partial reply: %q", got)
				}
				got += string(b)
			}
			cmd.Process.Signal(sig)
			io.Copy(io.Discard, r)
			timer := time.AfterFunc(processTimeout, func() { cmd.Process.Kill() })
			cmd.Wait()
			timer.Stop()
			if code := cmd.ProcessState.ExitCode(); code != exitFailure {
				t.Errorf("exit %d (%v), want %d; stderr %q", code, cmd.ProcessState, exitFailure, stderr.String())
			}
			msgs := h.sessionMessages("sig")
			if len(msgs) != 2 || msgs[1].Content != "the first words" || msgs[1].Status != "interrupted" {
				t.Fatalf("partial reply not stored as interrupted: %+v", msgs)
			}
		})
	}
}
