package ollamatest

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// ScriptCommand returns the testscript command "fakeollama", to register in
// testscript.Params.Cmds. Each script gets its own server:
//
//	fakeollama start [flags] [REPLIES.json]  start a server; sets OLLAMA_HOST
//	fakeollama script REPLIES.json           queue more replies
//	fakeollama requests                      print the chat requests received,
//	                                         one JSON object per line, on stdout
//	fakeollama pending                       print how many replies are unused
//	fakeollama stop                          stop the server (Ollama goes away)
//
// REPLIES.json is a JSON array of Reply. Flags of start (see ParseFlags):
// -models, -embed, -ctx, -no-tools, -default. The server stops when the script ends.
func ScriptCommand() func(ts *testscript.TestScript, neg bool, args []string) {
	var mu sync.Mutex
	servers := map[*testscript.TestScript]*Server{}
	get := func(ts *testscript.TestScript) *Server {
		mu.Lock()
		defer mu.Unlock()
		s := servers[ts]
		if s == nil {
			ts.Fatalf("fakeollama: no server (run: fakeollama start)")
		}
		return s
	}
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg {
			ts.Fatalf("fakeollama: unsupported: ! fakeollama")
		}
		if len(args) == 0 {
			ts.Fatalf("usage: fakeollama start|script|requests|pending|stop")
		}
		switch args[0] {
		case "start":
			fs := flag.NewFlagSet("fakeollama start", flag.ContinueOnError)
			fs.SetOutput(ts.Stderr())
			cfg := ParseFlags(fs)
			ts.Check(fs.Parse(args[1:]))
			s, err := Start("")
			ts.Check(err)
			cfg.Apply(s)
			for _, file := range fs.Args() {
				ts.Check(scriptFile(s, ts.MkAbs(file)))
			}
			mu.Lock()
			if servers[ts] != nil {
				mu.Unlock()
				s.Close()
				ts.Fatalf("fakeollama: already started")
			}
			servers[ts] = s
			mu.Unlock()
			ts.Setenv("OLLAMA_HOST", s.Host())
			ts.Defer(func() {
				s.Close()
				mu.Lock()
				delete(servers, ts)
				mu.Unlock()
			})
		case "script":
			s := get(ts)
			for _, file := range args[1:] {
				ts.Check(scriptFile(s, ts.MkAbs(file)))
			}
		case "requests":
			enc := json.NewEncoder(ts.Stdout())
			enc.SetEscapeHTML(false)
			for _, r := range get(ts).Requests() {
				ts.Check(enc.Encode(r))
			}
		case "pending":
			fmt.Fprintln(ts.Stdout(), get(ts).Pending())
		case "stop": // the server goes away; a later start begins a new one
			get(ts).Close()
			mu.Lock()
			delete(servers, ts)
			mu.Unlock()
		default:
			ts.Fatalf("fakeollama: unknown subcommand %q", args[0])
		}
	}
}

// Config is the server set-up shared by `fakeollama start` and the
// fakeollama command.
type Config struct {
	Models  string
	Embed   string
	Ctx     int
	NoTools bool
	Default string
}

// ParseFlags registers the set-up flags on fs.
func ParseFlags(fs *flag.FlagSet) *Config {
	c := &Config{}
	fs.StringVar(&c.Models, "models", "llama3.2", "comma-separated names of the installed models")
	fs.StringVar(&c.Embed, "embed", "", "comma-separated names of installed embedding models (NomicEmbed's kind)")
	fs.IntVar(&c.Ctx, "ctx", 131072, "context length every model reports")
	fs.BoolVar(&c.NoTools, "no-tools", false, "models lack the tools capability")
	fs.StringVar(&c.Default, "default", "", "text of the reply to unscripted requests (default: HTTP 500)")
	return c
}

// Apply installs the configured models and default reply.
func (c *Config) Apply(s *Server) {
	var models []Model
	for _, name := range strings.Split(c.Models, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		m := Llama32()
		m.Name, m.ContextLength = name, c.Ctx
		if c.NoTools {
			m.Capabilities = []string{"completion"}
		}
		models = append(models, m)
	}
	for _, name := range strings.Split(c.Embed, ",") {
		if name = strings.TrimSpace(name); name != "" {
			m := NomicEmbed()
			m.Name = name
			models = append(models, m)
		}
	}
	s.SetModels(models...)
	if c.Default != "" {
		s.Default(Text(c.Default))
	}
}

// ReadScript decodes a JSON array of replies.
func ReadScript(r io.Reader) ([]Reply, error) {
	var replies []Reply
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&replies); err != nil {
		return nil, err
	}
	return replies, nil
}

func scriptFile(s *Server, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	replies, err := ReadScript(f)
	if err != nil {
		return fmt.Errorf("read script %s: %w", path, err)
	}
	s.Script(replies...)
	return nil
}
