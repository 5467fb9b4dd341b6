package main

import (
	"context"
	"fmt"
	"time"

	"agent/core"
	"agent/core/embed"
	"agent/index"
)

// setEmbedder turns on search by meaning for ix when --embed-model or
// AGENT_EMBED_MODEL names a model; without one ix stays lexical.
func (a *app) setEmbedder(ix *index.Index) error {
	e, err := a.embedder()
	if err != nil || e == nil {
		return err
	}
	ix.SetEmbedder(e)
	return nil
}

// embedder is the embedding model the user named, or nil.
func (a *app) embedder() (index.Embedder, error) {
	if a.embedModel == "" {
		return nil, nil
	}
	e, err := embed.New(a.embedModel)
	if err != nil {
		return nil, usagef("%v", err)
	}
	if home, err := core.ResolveHome(a.homeFlag); err == nil {
		core.SayRemote(home, e.Host(), core.RemoteForEmbedding, func(msg string) { a.warnf("%s", msg) })
	}
	return e, nil
}

// embedJSON is the "embedded" object of reindex --json (docs/cli-index.md).
type embedJSON struct {
	Model    string  `json:"model"`
	Chunks   int     `json:"chunks"`
	Embedded int     `json:"embedded"`
	Reused   int     `json:"reused"`
	Left     int     `json:"left"`
	Seconds  float64 `json:"seconds"`
	Error    string  `json:"error,omitempty"`
}

// embedAll gives vectors to every chunk without one, with a progress line
// on a terminal. The model being unavailable is a warning, not a failure:
// the words index is whole, and search falls back to it.
func (a *app) embedAll(ctx context.Context, ix *index.Index) *embedJSON {
	e, _ := a.embedder()
	if e == nil {
		return nil
	}
	start := time.Now()
	opts := index.EmbedOptions{Notice: func(msg string) { a.warnf("%s", msg) }}
	bar := a.progressLine("agent: embedding")
	if bar != nil {
		opts.Progress = bar.set
	}
	st, err := ix.Embed(ctx, opts)
	if bar != nil {
		bar.clear()
	}
	out := &embedJSON{Model: e.Name(), Chunks: st.Chunks, Embedded: st.Embedded, Reused: st.Reused, Left: st.Left, Seconds: time.Since(start).Seconds()}
	if err != nil {
		out.Error = err.Error()
		a.warnf("embedding with %s stopped: %v (%d chunks left; search uses words alone for them)", e.Name(), err, st.Left)
		return out
	}
	a.infof("%s", fmt.Sprintf("embedded %d chunks with %s (%d texts sent, %d reused) in %.1fs", st.Chunks, e.Name(), st.Embedded, st.Reused, out.Seconds))
	return out
}

// embedInBackground starts watch's embedding of new text, on a handle of
// its own so the watcher's refreshes and vouching never wait for the model.
// poke asks for a pass (after a refresh that changed something); stop ends
// it and waits. Without an embedding model both do nothing.
func (a *app) embedInBackground(ctx context.Context, home string) (poke, stop func(), err error) {
	e, err := a.embedder()
	if err != nil || e == nil {
		return func() {}, func() {}, err
	}
	ix, err := index.Open(ctx, home, func(msg string) { a.warnf("%s", msg) })
	if err != nil {
		return nil, nil, err
	}
	ix.SetEmbedder(e)
	ctx, cancel := context.WithCancel(ctx)
	pokes := make(chan struct{}, 1)
	done := make(chan struct{})
	started := false
	poke = func() {
		if !started { // the first pass waits for the first refresh
			started = true
			go func() {
				defer close(done)
				embed.Background(ctx, ix, pokes, func(msg string) { a.infof("%s", msg) })
			}()
			return
		}
		select {
		case pokes <- struct{}{}:
		default: // a pass is already due
		}
	}
	stop = func() {
		cancel()
		if started {
			<-done
		}
		ix.Close()
	}
	return poke, stop, nil
}
