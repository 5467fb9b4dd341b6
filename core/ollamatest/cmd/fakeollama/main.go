// Command fakeollama runs the ollamatest fake Ollama server as a process, for
// shell scripts and benchmarks that need a model answering instantly:
//
//	fakeollama [-addr HOST:PORT] [-models a,b] [-ctx N] [-no-tools]
//	           [-default TEXT] [-requests FILE] [REPLIES.json ...]
//
// It prints the address to use as OLLAMA_HOST on stdout, then serves until
// SIGINT or SIGTERM. Scripted replies are used in order, then -default.
// With -requests, every chat request received is written to FILE, one JSON
// object per line, when the server stops.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"agent/core/ollamatest"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "fakeollama: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	fs := flag.NewFlagSet("fakeollama", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	requests := fs.String("requests", "", "write the chat requests received to this file on exit")
	cfg := ollamatest.ParseFlags(fs)
	fs.Parse(os.Args[1:])

	var replies []ollamatest.Reply
	for _, path := range fs.Args() {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		r, err := ollamatest.ReadScript(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("read script %s: %w", path, err)
		}
		replies = append(replies, r...)
	}

	// Signals are caught before the address is printed, so a script that
	// reads the address and then kills us always gets a clean exit.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)

	srv, err := ollamatest.Start(*addr)
	if err != nil {
		return err
	}
	cfg.Apply(srv)
	srv.Script(replies...)
	fmt.Println(srv.Host())

	<-sig
	srv.Close()
	if *requests == "" {
		return nil
	}
	f, err := os.Create(*requests)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	for _, r := range srv.Requests() {
		if err := enc.Encode(r); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}
