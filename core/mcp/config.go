// Package mcp connects the assistant to MCP servers (integrations): their
// configuration in <home>/mcp.json, the servers' processes or HTTP
// endpoints through the official Go SDK, a cache of their tool lists in
// state.db, the user's approval of each server and the per-tool allow/deny
// policy. It knows nothing of chats or models; core adapts its tools into
// the turn.
//
// Starting is explicit. A server starts only in the Manager's steps that
// say so — Start (a chat session), Prepare (a one-shot turn), Probe
// (`agent mcp list`, doctor), Revive (a chat session before each turn) —
// and in Call, which runs a tool; never one the user has not approved.
// Everything that answers a question (Tools, Lookup, Summaries,
// IdentityLines, Statuses, ServerTools, Decision) only reads.
//
// Lock order: a server's start mutex, then Manager.mu. Manager.mu guards
// the fields and is held only to read or write them: never across a start,
// a call or a store write, and never while taking a start mutex.
package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"
	"github.com/google/renameio/v2"

	"agent/memory/printable"
)

// ConfigFile is the configuration's name in the workspace.
const ConfigFile = "mcp.json"

// Transport kinds.
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http"
)

// Server is one entry of "mcpServers": a command run on stdio, or an HTTP
// (streamable) endpoint. Values may hold ${VAR}, expanded from the
// environment when the server is started, so secrets stay out of the file.
// Keys this agent does not know are kept as they were.
type Server struct {
	Name    string            `json:"-"`
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`

	extra map[string]json.RawMessage
}

// Kind is the server's transport: http when a URL is set or the type says
// so, else stdio.
func (s Server) Kind() string {
	switch strings.ToLower(s.Type) {
	case "http", "streamable-http", "streamablehttp":
		return TypeHTTP
	case "", "stdio":
		if s.URL != "" && s.Command == "" {
			return TypeHTTP
		}
		return TypeStdio
	}
	return strings.ToLower(s.Type)
}

// Validate says what makes the entry unusable, if anything.
func (s Server) Validate() error {
	switch s.Kind() {
	case TypeStdio:
		if strings.TrimSpace(s.Command) == "" {
			return fmt.Errorf("server %s: no command", s.Name)
		}
	case TypeHTTP:
		if !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://") && !strings.HasPrefix(s.URL, "${") {
			return fmt.Errorf("server %s: url %q must start with http:// or https://", s.Name, s.URL)
		}
	default:
		return fmt.Errorf("server %s: transport %q is not supported (stdio or http)", s.Name, s.Type)
	}
	return nil
}

// Target is what the server is, for the user and for their decisions: its
// command line (each word quoted as a shell would need, control characters
// escaped) or its URL, as written, ${VAR} unexpanded.
func (s Server) Target() string {
	if s.Kind() == TypeHTTP {
		return printable.Word(s.URL)
	}
	words := []string{printable.Word(s.Command)}
	for _, a := range s.Args {
		words = append(words, printable.Word(a))
	}
	return strings.Join(words, " ")
}

// Display is everything that decides what runs, for the user to approve:
// the entry's env as KEY=VALUE words before the command line, or the URL
// and its headers.
func (s Server) Display() string {
	var words []string
	if s.Kind() == TypeHTTP {
		words = append(words, s.Target())
		for _, k := range sortedKeys(s.Headers) {
			words = append(words, "(header "+printable.Word(k+": "+s.Headers[k])+")")
		}
		return strings.Join(words, " ")
	}
	for _, k := range sortedKeys(s.Env) {
		words = append(words, printable.Word(k+"="+s.Env[k]))
	}
	return strings.Join(append(words, s.Target()), " ")
}

// EntryHash identifies the entry as written (transport, command, args,
// env, URL, headers; ${VAR} unexpanded, so a rotated secret needs no new
// approval): an approval holds while it stays the same. A hash, not the
// text, as a literal token in env would otherwise be copied into state.db.
func (s Server) EntryHash() string {
	if len(s.Args) == 0 { // as written to and read from the file
		s.Args = nil
	}
	if len(s.Env) == 0 {
		s.Env = nil
	}
	if len(s.Headers) == 0 {
		s.Headers = nil
	}
	return hashJSON(struct {
		Kind, Command string
		Args          []string
		Env, Headers  map[string]string
		URL           string
	}{s.Kind(), s.Command, s.Args, s.Env, s.Headers, s.URL})
}

// TargetKey identifies what runs — transport, command and args, or URL, as
// written — for the allow/deny decisions, which belong to it: a server
// that replaces another under the same name starts with none. A hash, for
// the reason EntryHash is one: an argument or a URL may hold a token.
func (s Server) TargetKey() string {
	if len(s.Args) == 0 {
		s.Args = nil
	}
	return hashJSON(struct {
		Kind, Command string
		Args          []string
		URL           string
	}{s.Kind(), s.Command, s.Args, s.URL})
}

func hashJSON(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

var knownServerKeys = []string{"type", "command", "args", "env", "url", "headers"}

// UnmarshalJSON keeps the keys it does not know in extra.
func (s *Server) UnmarshalJSON(b []byte) error {
	type plain Server
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	for _, k := range knownServerKeys {
		delete(all, k)
	}
	*s = Server(p)
	if len(all) > 0 {
		s.extra = all
	}
	return nil
}

// MarshalJSON writes the known fields and the kept unknown keys.
func (s Server) MarshalJSON() ([]byte, error) {
	type plain Server
	b, err := json.Marshal(plain(s))
	if err != nil || len(s.extra) == 0 {
		return b, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, err
	}
	for k, v := range s.extra {
		if _, known := all[k]; !known {
			all[k] = v
		}
	}
	return json.Marshal(all) // map keys come out sorted: a stable file
}

// Config is the whole mcp.json: the servers, and any other top-level keys
// (kept as they were).
type Config struct {
	Servers map[string]Server
	extra   map[string]json.RawMessage
}

// Names lists the servers, sorted.
func (c *Config) Names() []string {
	names := make([]string, 0, len(c.Servers))
	for n := range c.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ParseConfig reads the mcpServers format (.mcp.json, Claude Desktop's
// claude_desktop_config.json, this agent's mcp.json).
func ParseConfig(data []byte) (*Config, error) {
	c := &Config{Servers: map[string]Server{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return c, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, err
	}
	if raw, ok := top["mcpServers"]; ok {
		if err := json.Unmarshal(raw, &c.Servers); err != nil {
			return nil, fmt.Errorf("mcpServers: %w", err)
		}
		if c.Servers == nil {
			c.Servers = map[string]Server{}
		}
		delete(top, "mcpServers")
	}
	for name, s := range c.Servers {
		s.Name = name
		c.Servers[name] = s
	}
	if len(top) > 0 {
		c.extra = top
	}
	return c, nil
}

// Marshal renders the file: two-space indent, sorted keys, final newline.
func (c *Config) Marshal() ([]byte, error) {
	top := map[string]any{}
	for k, v := range c.extra {
		top[k] = v
	}
	servers := c.Servers
	if servers == nil {
		servers = map[string]Server{}
	}
	top["mcpServers"] = servers
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(top); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// LoadConfig reads path; a missing file is an empty configuration.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Config{Servers: map[string]Server{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	c, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return c, nil
}

// SaveConfig replaces path atomically (temp file, fsync, rename), so a crash
// leaves the old file or the new one, never half of either.
func SaveConfig(path string, c *Config) error {
	data, err := c.Marshal()
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	perm := fs.FileMode(0o600) // headers and env often hold secrets
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := renameio.WriteFile(path, data, perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// UpdateConfig changes path under an advisory lock held from the read to
// the rename, so two agents editing it at once (parallel `agent mcp add`)
// each see the other's change instead of writing over it. change may
// refuse by returning an error: then nothing is written.
func UpdateConfig(ctx context.Context, path string, change func(*Config) error) error {
	lockPath := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
	fl := flock.New(lockPath)
	wait, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ok, err := fl.TryLockContext(wait, 10*time.Millisecond)
	if !ok {
		if err == nil || errors.Is(err, context.DeadlineExceeded) {
			err = errors.New("another agent holds it for more than 30s")
		}
		return fmt.Errorf("lock %s: %w", lockPath, err)
	}
	defer fl.Unlock()
	c, err := LoadConfig(path)
	if err != nil {
		return err
	}
	if err := change(c); err != nil {
		return err
	}
	return SaveConfig(path, c)
}

// nameRE is a server name's alphabet, compiled on first use; its length (at
// most 40) is checked apart, as a bounded repeat compiles into one copy of
// the class per place.
var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`) })

// ValidName says whether name can name a server: letters, digits, '-' and
// '_', at most 40, so "NAME__tool" stays readable and within 64.
func ValidName(name string) error {
	if len(name) > 40 || !nameRE().MatchString(name) {
		return fmt.Errorf("server name %q: use letters, digits, '-' and '_' (at most 40, starting with a letter or digit)", name)
	}
	if strings.Contains(name, "__") {
		return fmt.Errorf("server name %q: '__' separates the server from the tool in a tool's name", name)
	}
	return nil
}

// SanitizeName turns a name from another client's config into a valid one.
func SanitizeName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	s := strings.Trim(b.String(), "-_")
	for strings.Contains(s, "__") {
		s = strings.ReplaceAll(s, "__", "_")
	}
	if len(s) > 40 {
		s = s[:40]
	}
	if s == "" {
		s = "server"
	}
	return s
}

var varRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`) })

// expand replaces each ${VAR} with its value from getenv; an unset variable
// is an error naming it, so a server never starts with a silently empty token.
func expand(s string, getenv func(string) (string, bool)) (string, error) {
	var missing []string
	out := varRE().ReplaceAllStringFunc(s, func(m string) string {
		name := m[2 : len(m)-1]
		v, ok := getenv(name)
		if !ok {
			missing = append(missing, name)
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("${%s} is not set in the environment", missing[0])
	}
	return out, nil
}

// BaseEnv names the variables of the agent's own environment a stdio
// server gets besides its entry's env: the reference SDKs' default
// (TypeScript getDefaultEnvironment, Python get_default_environment: sudo's
// list) plus the locale, the temporary directory and the time zone, which
// servers read to format and to write scratch files. Anything else (a
// token, a proxy) reaches a server only when its entry names it:
// "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}.
var BaseEnv = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ"}

// environ is a stdio server's whole environment: the base set from getenv
// (shell functions, values starting "()", left out as the SDKs do), then
// the entry's resolved env.
func (s Server) environ(getenv func(string) (string, bool)) []string {
	var env []string
	for _, k := range BaseEnv {
		if _, named := s.Env[k]; named {
			continue
		}
		if v, ok := getenv(k); ok && !strings.HasPrefix(v, "()") {
			env = append(env, k+"="+v)
		}
	}
	for _, k := range sortedKeys(s.Env) {
		env = append(env, k+"="+s.Env[k])
	}
	return env
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// minMasked is the shortest expanded value masked in error texts: shorter
// ones ("1", "on") are settings, not secrets, and masking them would garble
// every message they occur in.
const minMasked = 4

// masker returns what hides, in a text, the values the entry's ${VAR}s
// expanded to (as given and URL-escaped), writing ${VAR} in their place:
// error texts quote URLs, command lines and a server's stderr, and go to
// state.db and the screen. Variables of the base set (HOME, USER…) are
// not secrets and stay readable.
func (s Server) masker(getenv func(string) (string, bool)) func(string) string {
	var pairs []string
	seen := map[string]bool{}
	add := func(field string) {
		for _, m := range varRE().FindAllStringSubmatch(field, -1) {
			name := m[1]
			v, ok := getenv(name)
			if !ok || len(v) < minMasked || seen[name] || slices.Contains(BaseEnv, name) {
				continue
			}
			seen[name] = true
			pairs = append(pairs, v, "${"+name+"}")
			if q := url.QueryEscape(v); q != v {
				pairs = append(pairs, q, "${"+name+"}")
			}
		}
	}
	add(s.Command)
	add(s.URL)
	for _, a := range s.Args {
		add(a)
	}
	for _, k := range sortedKeys(s.Env) {
		add(s.Env[k])
	}
	for _, k := range sortedKeys(s.Headers) {
		add(s.Headers[k])
	}
	if len(pairs) == 0 {
		return func(text string) string { return text }
	}
	r := strings.NewReplacer(pairs...)
	return r.Replace
}

// Resolved returns the server with every ${VAR} expanded.
func (s Server) Resolved(getenv func(string) (string, bool)) (Server, error) {
	r := s
	var err error
	one := func(v string) string {
		if err != nil {
			return v
		}
		var x string
		x, err = expand(v, getenv)
		return x
	}
	r.Command, r.URL = one(s.Command), one(s.URL)
	r.Args = nil
	for _, a := range s.Args {
		r.Args = append(r.Args, one(a))
	}
	r.Env, r.Headers = nil, nil
	if s.Env != nil {
		r.Env = map[string]string{}
		for k, v := range s.Env {
			r.Env[k] = one(v)
		}
	}
	if s.Headers != nil {
		r.Headers = map[string]string{}
		for k, v := range s.Headers {
			r.Headers[k] = one(v)
		}
	}
	if err != nil {
		return Server{}, fmt.Errorf("server %s: %w", s.Name, err)
	}
	return r, nil
}
