package mcpserve_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"agent/core"
	"agent/core/devsync"
	"agent/core/mcpserve"
)

const testToken = "0123456789abcdef0123456789abcdef"

// headers adds fixed headers to every request of a client.
type headers struct {
	h  map[string]string
	rt http.RoundTripper
}

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.h {
		r.Header.Set(k, v)
	}
	return h.rt.RoundTrip(r)
}

// httpServer serves home's memory over streamable HTTP on a loopback port,
// as agent mcp serve --http does, and returns the endpoint.
func httpServer(t *testing.T, home string, db *sql.DB) string {
	t.Helper()
	recall, err := core.OpenIndexRecall(context.Background(), home, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	srv := mcpserve.New(mcpserve.Options{Home: home, State: db, Recall: recall, Zone: time.UTC, Now: func() time.Time { return fixed }})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mcpserve.Serve(ctx, ln, mcpserve.Handler(srv, testToken)) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		recall.Close()
	})
	return "http://" + ln.Addr().String() + mcpserve.Path
}

func connectHTTP(endpoint, name string, hdr map[string]string) (*sdk.ClientSession, error) {
	hc := &http.Client{Transport: headers{hdr, http.DefaultTransport}}
	return sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, nil).
		Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1}, nil)
}

// Several clients at once over HTTP, each with the token, each writing
// under its own name; without the token, or from a foreign page, nothing.
func TestHTTPClientsWithTokenAndOrigin(t *testing.T) {
	home, db := workspace(t)
	endpoint := httpServer(t, home, db)
	auth := map[string]string{"Authorization": "Bearer " + testToken}

	var wg sync.WaitGroup
	names := []string{"claude-code", "codex", "cursor", "gemini-cli"}
	errs := make(chan error, len(names))
	for _, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs, err := connectHTTP(endpoint, name, auth)
			if err != nil {
				errs <- err
				return
			}
			defer cs.Close()
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: mcpserve.ToolRemember,
				Arguments: map[string]any{"text": "hello from " + name, "kind": "note"}})
			if err == nil && res.IsError {
				err = errors.New(res.Content[0].(*sdk.TextContent).Text)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	log := readFile(t, home, "logs/2026-11-28.md")
	for _, name := range names {
		if strings.Count(log, "### 10:02 · via "+name+"\n\nhello from "+name+"\n") != 1 {
			t.Errorf("%s's note is not there once:\n%s", name, log)
		}
	}
	// An allowed Origin: this server's own, or a loopback page.
	if cs, err := connectHTTP(endpoint, "local-page", map[string]string{"Authorization": "Bearer " + testToken, "Origin": "http://localhost:3000"}); err != nil {
		t.Errorf("a loopback Origin is refused: %v", err)
	} else {
		cs.Close()
	}

	for _, c := range []struct {
		name string
		hdr  map[string]string
		code int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"wrong token", map[string]string{"Authorization": "Bearer " + strings.Repeat("x", 32)}, http.StatusUnauthorized},
		{"token without Bearer", map[string]string{"Authorization": testToken}, http.StatusUnauthorized},
		{"foreign Origin", map[string]string{"Authorization": "Bearer " + testToken, "Origin": "http://evil.example"}, http.StatusForbidden},
		{"rebinding Origin", map[string]string{"Authorization": "Bearer " + testToken, "Origin": "http://attacker.test:" + strings.Split(endpoint, ":")[2][:4]}, http.StatusForbidden},
		{"null Origin", map[string]string{"Authorization": "Bearer " + testToken, "Origin": "null"}, http.StatusForbidden},
		{"foreign Host", map[string]string{"Authorization": "Bearer " + testToken, "Host": "evil.example"}, http.StatusForbidden},
	} {
		req, _ := http.NewRequest("POST", endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range c.hdr {
			req.Header.Set(k, v)
		}
		if h, ok := c.hdr["Host"]; ok {
			req.Host = h
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.code {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.code)
		}
		if c.name == "foreign Host" {
			continue // the SDK's client sends the endpoint's Host whatever the header says
		}
		if _, err := connectHTTP(endpoint, "intruder", c.hdr); err == nil {
			t.Errorf("%s: the SDK client connected", c.name)
		}
	}
	if got := readFile(t, home, "logs/2026-11-28.md"); got != log {
		t.Errorf("a refused client changed the log:\n%s", got)
	}
}

// Garbage on the HTTP endpoint is refused and the server goes on serving.
func TestHTTPGarbage(t *testing.T) {
	home, db := workspace(t)
	endpoint := httpServer(t, home, db)
	for _, body := range []string{"garbage", "{", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_search"}}`, strings.Repeat("[", 1<<20)} {
		req, _ := http.NewRequest("POST", endpoint, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		// A JSON-RPC error comes with 200; anything else is refused.
		if resp.StatusCode < 400 && !strings.Contains(string(answer), `"error"`) {
			t.Errorf("%.20q: status %d %s", body, resp.StatusCode, answer)
		}
	}
	cs, err := connectHTTP(endpoint, "codex", map[string]string{"Authorization": "Bearer " + testToken})
	if err != nil {
		t.Fatalf("after garbage: %v", err)
	}
	defer cs.Close()
	if out := mustCall(t, cs, mcpserve.ToolSearch, map[string]any{"query": "anything"}); !strings.Contains(out, "nothing in memory matches") {
		t.Errorf("after garbage: %s", out)
	}
}

func TestCheckAddr(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:8765": true, "[::1]:0": true, "localhost:80": true,
		":8765": false, "0.0.0.0:8765": false, "192.168.1.2:80": false, "[::]:1": false, "example.com:80": false,
	} {
		err := mcpserve.CheckAddr(addr, false)
		if (err == nil) != ok || (!ok && !errors.Is(err, mcpserve.ErrNotLoopback)) {
			t.Errorf("CheckAddr(%q) = %v", addr, err)
		}
		if err := mcpserve.CheckAddr(addr, true); err != nil {
			t.Errorf("CheckAddr(%q, remote) = %v", addr, err)
		}
	}
	if err := mcpserve.CheckAddr("8765", true); err == nil {
		t.Error("an address without a port is taken")
	}
}

// The token is the environment's, else the kept one, else a new one kept
// 0600; a file others can read, or a symlink, is refused, never trusted.
func TestToken(t *testing.T) {
	home := t.TempDir()
	tok, created, err := mcpserve.Token(home, "")
	if err != nil || !created || len(tok) != 64 {
		t.Fatalf("new token: %q %v %v", tok, created, err)
	}
	fi, err := os.Stat(filepath.Join(home, mcpserve.TokenFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	if again, created, err := mcpserve.Token(home, ""); again != tok || created || err != nil {
		t.Errorf("kept token: %q %v %v", again, created, err)
	}
	if env, _, err := mcpserve.Token(home, testToken); env != testToken || err != nil {
		t.Errorf("env token: %q %v", env, err)
	}
	if _, _, err := mcpserve.Token(home, "short"); err == nil {
		t.Error("a short token from the environment is taken")
	}
	os.Chmod(filepath.Join(home, mcpserve.TokenFile), 0o644)
	if _, _, err := mcpserve.Token(home, ""); err == nil || !strings.Contains(err.Error(), "read by others") {
		t.Errorf("a readable token file: %v", err)
	}
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "t"), []byte(testToken), 0o600)
	os.Symlink(filepath.Join(other, "t"), filepath.Join(other, mcpserve.TokenFile))
	if _, _, err := mcpserve.Token(other, ""); err == nil {
		t.Error("a symlinked token file is trusted")
	}
	// Servers started at once agree on one token.
	race := t.TempDir()
	got := make(chan string, 8)
	for range 8 {
		go func() {
			tok, _, err := mcpserve.Token(race, "")
			if err != nil {
				t.Error(err)
			}
			got <- tok
		}()
	}
	first := <-got
	for range 7 {
		if tok := <-got; tok != first {
			t.Errorf("two tokens: %q and %q", first, tok)
		}
	}
}

// The serve token is this device's: sync never shares it (it is handed to
// devsync here, core being below mcpserve).
func TestTokenFileStaysLocal(t *testing.T) {
	if !devsync.LocalOnly(mcpserve.TokenFile) {
		t.Errorf("%s is shared by sync", mcpserve.TokenFile)
	}
}
