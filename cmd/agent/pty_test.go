package main

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ptyDeadline bounds every wait for output in a pseudo-terminal: generous,
// since a waited-for pattern normally appears in milliseconds and a missing
// one is a failure, never a slow pass.
const ptyDeadline = 30 * time.Second

// ptyProc is the real binary running in a pseudo-terminal, read as a person
// sees it: everything written to the terminal, in order.
type ptyProc struct {
	t    *testing.T
	cmd  *exec.Cmd
	tty  *os.File
	mu   sync.Mutex
	cond *sync.Cond
	out  []byte
	seen int // offset up to which expect has consumed out
	done bool
	exit chan error
}

// startPTY runs agent with args in a 120x40 terminal, colour on.
func (h *harness) startPTY(extraEnv []string, args ...string) *ptyProc {
	h.t.Helper()
	return h.startPTYCols(120, extraEnv, args...)
}

// startPTYCols runs agent with args in a terminal cols wide, colour on.
func (h *harness) startPTYCols(cols uint16, extraEnv []string, args ...string) *ptyProc {
	h.t.Helper()
	cmd := exec.Command(h.bin, args...)
	env := slicesWithout(h.env, "NO_COLOR=", "TERM=")
	cmd.Env = append(append(env, "TERM=xterm-256color"), extraEnv...)
	cmd.Dir = h.dir
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: cols})
	if err != nil {
		h.t.Fatalf("start in a pty: %v", err)
	}
	p := &ptyProc{t: h.t, cmd: cmd, tty: tty, exit: make(chan error, 1)}
	p.cond = sync.NewCond(&p.mu)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			p.mu.Lock()
			p.out = append(p.out, buf[:n]...)
			if err != nil {
				p.done = true
			}
			p.cond.Broadcast()
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() { p.exit <- cmd.Wait() }()
	h.t.Cleanup(func() {
		cmd.Process.Kill()
		tty.Close()
	})
	return p
}

func slicesWithout(env []string, prefixes ...string) []string {
	var out []string
next:
	for _, kv := range env {
		for _, p := range prefixes {
			if strings.HasPrefix(kv, p) {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}

// expect waits until the output after the last match holds re, and returns
// the output up to and including the match.
func (p *ptyProc) expect(re string) string {
	p.t.Helper()
	rx := regexp.MustCompile(re)
	defer p.deadline().Stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if loc := rx.FindIndex(p.out[p.seen:]); loc != nil {
			got := string(p.out[p.seen : p.seen+loc[1]])
			p.seen += loc[1]
			return got
		}
		if p.done {
			p.t.Fatalf("no %q in the terminal within %v; after the last match it shows:\n%q", re, ptyDeadline, p.out[p.seen:])
		}
		p.cond.Wait()
	}
}

// deadline wakes the waiters after ptyDeadline, as if the terminal had
// closed, so that a missing pattern fails instead of hanging.
func (p *ptyProc) deadline() *time.Timer {
	return time.AfterFunc(ptyDeadline, func() {
		p.mu.Lock()
		p.done = true
		p.cond.Broadcast()
		p.mu.Unlock()
	})
}

// send types s as keystrokes.
func (p *ptyProc) send(s string) {
	p.t.Helper()
	if _, err := p.tty.Write([]byte(s)); err != nil {
		p.t.Fatalf("type %q: %v", s, err)
	}
}

// wait returns the process's exit error once it has ended.
func (p *ptyProc) wait() error {
	p.t.Helper()
	select {
	case err := <-p.exit:
		p.expectEOF()
		return err
	case <-time.After(ptyDeadline):
		// SIGQUIT makes a Go program print every goroutine's stack and
		// exit: what it was stuck on is then in the failure.
		p.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-p.exit:
			p.expectEOF()
		case <-time.After(5 * time.Second):
		}
		p.t.Fatalf("the process did not exit within %v; the terminal shows (after SIGQUIT, its goroutines):\n%s", ptyDeadline, p.all())
		return nil
	}
}

// expectEOF waits for the reader to see the terminal close.
func (p *ptyProc) expectEOF() {
	defer p.deadline().Stop()
	p.mu.Lock()
	for !p.done {
		p.cond.Wait()
	}
	p.mu.Unlock()
}

func (p *ptyProc) all() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return string(p.out)
}

// runPTY runs a command to its end in a terminal and returns what it showed,
// line ends as the terminal sends them ("\r\n") turned into "\n".
func (h *harness) runPTY(args ...string) string {
	h.t.Helper()
	p := h.startPTY(nil, args...)
	if err := p.wait(); err != nil {
		h.t.Fatalf("agent %s: %v\n%s", strings.Join(args, " "), err, p.all())
	}
	return string(bytes.ReplaceAll([]byte(p.all()), []byte("\r\n"), []byte("\n")))
}
