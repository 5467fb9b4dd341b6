package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"agent/core/mcp/mcptest"
)

// authSeen is an MCP server that records the Authorization header of every
// request it gets.
type authSeen struct {
	mu   sync.Mutex
	auth []string
	h    http.Handler
}

func (a *authSeen) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.auth = append(a.auth, r.Header.Get("Authorization"))
	a.mu.Unlock()
	a.h.ServeHTTP(w, r)
}

func (a *authSeen) seen() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.auth...)
}

// A server that redirects to another origin never gets the configured
// headers sent there: the redirect is refused, with an error that says so.
func TestHTTPRedirectToAnotherOriginRefused(t *testing.T) {
	other := &authSeen{h: mcptest.Handler()}
	otherSrv := httptest.NewServer(other)
	defer otherSrv.Close()
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, otherSrv.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer first.Close()
	s := Server{Name: "web", Type: "http", URL: first.URL + "/mcp", Headers: map[string]string{"Authorization": "Bearer tok-s3cr3t"}}
	c, err := connect(context.Background(), s, t.TempDir(), nil)
	if err == nil {
		c.close()
	}
	for _, a := range other.seen() {
		if strings.Contains(a, "tok-s3cr3t") {
			t.Fatalf("the configured header reached the other origin: %q", a)
		}
	}
	if len(other.seen()) != 0 {
		t.Errorf("the request was sent on to the other origin (%d requests): a tool call's body would be too", len(other.seen()))
	}
	if err == nil || !strings.Contains(err.Error(), "redirected to another origin") {
		t.Errorf("connect: %v, want a refusal naming the redirect", err)
	}
}

// A redirect within the server's origin (a path that moved) is followed,
// the headers with it.
func TestHTTPRedirectSameOriginFollowed(t *testing.T) {
	seen := &authSeen{h: mcptest.Handler()}
	mux := http.NewServeMux()
	mux.Handle("/mcp", seen)
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/mcp", http.StatusPermanentRedirect)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	s := Server{Name: "web", Type: "http", URL: srv.URL + "/old", Headers: map[string]string{"Authorization": "Bearer tok"}}
	c, err := connect(context.Background(), s, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c.close()
	if got := seen.seen(); len(got) == 0 || got[0] != "Bearer tok" {
		t.Errorf("headers at the moved path: %q", got)
	}
}
