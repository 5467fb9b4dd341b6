package mcpserve

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"agent/core/devsync"
)

// Path is where the streamable HTTP endpoint is served.
const Path = "/mcp"

// TokenFile holds the generated bearer token, 0600, in the workspace's
// machine-local files (devsync.Ignored keeps it out of sync: see init).
const TokenFile = ".mcp-serve.token"

// The token stays on this device: core hands sync the names of the files
// below it (core.LocalFiles); this one, above core, is handed in here.
func init() { devsync.Local("/" + TokenFile) }

// TokenEnv gives the token instead of the file.
const TokenEnv = "AGENT_MCP_TOKEN"

// minToken is the shortest token accepted from the environment: a short
// one is guessed by anyone on the machine who can reach the port.
const minToken = 16

// ErrNotLoopback is an address other than the loopback one, refused unless
// the user allows it.
var ErrNotLoopback = errors.New("not a loopback address")

// CheckAddr refuses a listen address that is not loopback (127.0.0.1, ::1,
// localhost) unless remote is set: ":8080" and "0.0.0.0:8080" listen on
// every interface.
func CheckAddr(addr string, remote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: want HOST:PORT, like 127.0.0.1:8765: %w", addr, err)
	}
	if remote || isLoopback(host) {
		return nil
	}
	return fmt.Errorf("--http %s: %w: other machines could reach your memory; give --allow-remote to mean it", addr, ErrNotLoopback)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Handler serves srv's streamable HTTP endpoint at Path for any number of
// clients (one MCP session each), to requests with the bearer token and
// without a foreign Origin. A browser page from elsewhere (DNS rebinding,
// a malicious site) sends its own Origin: it gets 403 before anything else,
// as the MCP spec requires; a request without the token gets 401.
func Handler(srv *sdk.Server, token string) http.Handler {
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	mux := http.NewServeMux()
	mux.Handle(Path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !originAllowed(r) {
			http.Error(w, "Forbidden: foreign Origin", http.StatusForbidden)
			return
		}
		if !tokenOK(r, token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="agent"`)
			http.Error(w, "Unauthorized: give the token as Authorization: Bearer TOKEN", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	return mux
}

// originAllowed lets through a request without Origin (a program, not a
// browser) and one whose Origin is this server itself or a loopback page.
func originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return strings.EqualFold(u.Host, r.Host) || isLoopback(u.Hostname())
}

func tokenOK(r *http.Request, token string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && token != "" && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) == 1
}

// Token returns the bearer token: env's value when set, else the one kept
// in home's TokenFile, else a new one written there (0600). created says
// it is new: the caller shows it once.
func Token(home, env string) (token string, created bool, err error) {
	if env != "" {
		if len(env) < minToken {
			return "", false, fmt.Errorf("%s is %d characters; give at least %d", TokenEnv, len(env), minToken)
		}
		return env, false, nil
	}
	path := filepath.Join(home, TokenFile)
	switch t, err := readToken(path); {
	case err == nil:
		return t, false, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", false, err
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", false, err
	}
	token = hex.EncodeToString(raw[:])
	switch err := writeNew(path, []byte(token+"\n")); {
	case errors.Is(err, fs.ErrExist): // another server made one meanwhile
		return Token(home, "")
	case err != nil:
		return "", false, fmt.Errorf("keep the token: %w", err)
	}
	return token, true, nil
}

// readToken reads the kept token. The file is opened without following a
// link (and without blocking on a fifo), and the opened file itself is
// checked: a check by path and then a read by path could read a link
// swapped in between.
func readToken(path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return "", fmt.Errorf("%s is not a regular file; remove it to have a new token made", path)
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	tokenOpened()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file; remove it to have a new token made", path)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%s can be read by others (mode %v); remove it to have a new token made", path, fi.Mode().Perm())
	}
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile))
	if err != nil {
		return "", err
	}
	if t := strings.TrimSpace(string(b)); len(t) >= minToken {
		return t, nil
	}
	return "", fmt.Errorf("%s holds no token; remove it to have a new one made", path)
}

// maxTokenFile bounds what is read of the token file (a token is 64 hex
// digits and a newline).
const maxTokenFile = 4096

// tokenOpened runs between opening the token file and reading it: a test
// swaps the path for a link there.
var tokenOpened = func() {}

// writeNew writes data to path whole (temp file, fsync, then a hard link,
// which fails if path exists): two servers started at once keep one token.
func writeNew(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".mcp-serve.token.*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Link(f.Name(), path)
}

// Serve serves h on ln until ctx ends, then shuts down, letting calls in
// flight finish for a few seconds.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if hs.Shutdown(sctx) != nil {
		hs.Close() // a client that keeps its event stream open
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
