package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"agent/memory/printable"
)

// LogDir is where servers' stderr goes, under the workspace. It is hidden,
// so the memory index never walks it.
const LogDir = ".mcp-logs"

// maxLogBytes is the size at which a server's log is rotated to NAME.log.1.
const maxLogBytes = 1 << 20

// clientVersion is what the agent calls itself to servers.
var clientImpl = &sdk.Implementation{Name: "agent", Version: "1"}

// conn is one live connection to a server.
type conn struct {
	name   string
	cs     *sdk.ClientSession
	cmd    *exec.Cmd // nil over HTTP
	log    *os.File
	tail   *tailBuffer
	done   chan struct{} // closed when the session ends, for whatever reason
	closed sync.Once
}

// connect starts (stdio) or reaches (HTTP) the server and completes the MCP
// handshake within ctx. On failure nothing is left running. A stdio server
// gets env as its whole environment.
func connect(ctx context.Context, s Server, home string, env []string) (*conn, error) {
	c := &conn{name: s.Name, tail: &tailBuffer{max: 4096}, done: make(chan struct{})}
	var transport sdk.Transport
	switch s.Kind() {
	case TypeStdio:
		log, err := openLog(home, s.Name)
		if err != nil {
			return nil, err
		}
		c.log = log
		cmd := exec.Command(s.Command, s.Args...)
		cmd.Env = env
		cmd.Dir = home
		cmd.Stderr = io.MultiWriter(log, c.tail)
		// A grandchild holding the stderr pipe must not hang Wait.
		cmd.WaitDelay = time.Second
		setProcessGroup(cmd)
		c.cmd = cmd
		transport = &sdk.CommandTransport{Command: cmd, TerminateDuration: time.Second}
	case TypeHTTP:
		hc, err := httpClient(s)
		if err != nil {
			return nil, err
		}
		transport = &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true}
	default:
		return nil, s.Validate()
	}
	client := sdk.NewClient(clientImpl, nil)
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		c.kill()
		if ctx.Err() != nil {
			err = fmt.Errorf("%w: %w", errStartTimeout, ctx.Err())
		}
		return nil, c.describe(err)
	}
	c.cs = cs
	go func() {
		_ = cs.Wait()
		close(c.done)
	}()
	return c, nil
}

// describe adds the tail of the server's stderr to an error.
func (c *conn) describe(err error) error {
	if t := c.tail.lastLines(5); t != "" {
		return &stderrError{err, t}
	}
	return err
}

// alive reports whether the session is still up.
func (c *conn) alive() bool {
	select {
	case <-c.done:
		return false
	default:
		return true
	}
}

// listTools lists every tool, following pagination.
func (c *conn) listTools(ctx context.Context) ([]*sdk.Tool, error) {
	var tools []*sdk.Tool
	for t, err := range c.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, c.describe(err)
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// call runs one tool and renders its result as text. isError is the
// server's own verdict (the call worked, the tool failed).
func (c *conn) call(ctx context.Context, tool string, args map[string]any) (text string, isError bool, err error) {
	if args == nil {
		args = map[string]any{}
	}
	res, err := c.cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		var wire *jsonrpc.Error
		if ctx.Err() == nil && !errors.As(err, &wire) {
			// A broken pipe shows before the session's end does: give the
			// session a moment to finish, so a death is named as one.
			select {
			case <-c.done:
			case <-time.After(2 * time.Second):
			}
		}
		if !c.alive() {
			return "", false, c.describe(fmt.Errorf("the server exited during the call: %w", err))
		}
		return "", false, err
	}
	return renderResult(res), res.IsError, nil
}

// renderResult turns a result's content into text for the model: text as
// is, other content named with its type and size.
func renderResult(res *sdk.CallToolResult) string {
	var parts []string
	for _, ct := range res.Content {
		switch v := ct.(type) {
		case *sdk.TextContent:
			parts = append(parts, v.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes, not shown]", v.MIMEType, len(v.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes, not shown]", v.MIMEType, len(v.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s: %s]", v.Name, v.URI))
		case *sdk.EmbeddedResource:
			if v.Resource != nil && v.Resource.Text != "" {
				parts = append(parts, fmt.Sprintf("[resource %s]\n%s", v.Resource.URI, v.Resource.Text))
			} else if v.Resource != nil {
				parts = append(parts, fmt.Sprintf("[resource %s, %d bytes, not shown]", v.Resource.URI, len(v.Resource.Blob)))
			}
		default:
			b, _ := json.Marshal(ct)
			parts = append(parts, string(b))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		parts = append(parts, string(b))
	}
	return strings.Join(parts, "\n")
}

// close ends the session (closing a stdio server's stdin, then SIGTERM,
// then SIGKILL, as the SDK does) and kills what is left of its process
// group.
func (c *conn) close() {
	c.closed.Do(func() {
		if c.cs != nil {
			_ = c.cs.Close()
		}
		c.kill()
	})
}

func (c *conn) kill() {
	if c.cmd != nil {
		killProcessGroup(c.cmd)
	}
	if c.log != nil {
		c.log.Close()
	}
}

// openLog opens <home>/.mcp-logs/NAME.log for appending, rotating it first
// when it has grown past maxLogBytes.
func openLog(home, name string) (*os.File, error) {
	dir := filepath.Join(home, LogDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("server %s: log directory: %w", name, err)
	}
	path := filepath.Join(dir, name+".log")
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxLogBytes {
		_ = os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("server %s: log: %w", name, err)
	}
	fmt.Fprintf(f, "--- agent started this server at %s\n", time.Now().Format(time.RFC3339))
	return f, nil
}

// LogPath is where a server's stderr is kept.
func LogPath(home, name string) string { return filepath.Join(home, LogDir, name+".log") }

// httpClient is the client for an HTTP server: its configured headers (an
// Authorization: Bearer ${TOKEN}) go to the configured origin and nowhere
// else. A redirect to another origin is refused, not followed with the
// headers stripped: the request's body is a tool call, the user's words in
// its arguments, and a server that moved is one the user should name
// again (docs/decisions-leaks.md).
func httpClient(s Server) (*http.Client, error) {
	u, err := url.Parse(s.URL)
	if err != nil {
		return nil, fmt.Errorf("url %s: %w", printable.Word(s.URL), err)
	}
	home := origin(u)
	return &http.Client{
		Transport: headerTransport{headers: s.Headers, origin: home, base: http.DefaultTransport},
		CheckRedirect: func(r *http.Request, via []*http.Request) error {
			if o := origin(r.URL); o != home {
				return fmt.Errorf("the server redirected to another origin, %s: not followed (the configured headers and the tool calls go only to %s); if it moved, add it again with its new url", printable.Word(o), printable.Word(home))
			}
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return nil
		},
	}, nil
}

// origin is a URL's scheme, host and port, the port spelled out: what a
// browser compares before it sends credentials.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// headerTransport adds the configured headers to every request to the
// configured origin (CheckRedirect keeps others away; this is the second
// lock, should a request reach another origin by some other way).
type headerTransport struct {
	headers map[string]string
	origin  string
	base    http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 && origin(r.URL) == t.origin {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			r.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(r)
}

// tailBuffer keeps the last bytes written to it: a server's last words.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

// lastLines returns up to n last non-empty lines, joined by " | ".
func (t *tailBuffer) lastLines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var lines []string
	for _, l := range strings.Split(string(t.buf), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// errNotRunning is a call to a server that is down.
var errNotRunning = errors.New("not running")
