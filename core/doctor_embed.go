package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"agent/index"
)

// Add appends a check to the report (the embeddings line, present only
// when an embedding model is named).
func (r *DoctorReport) Add(c DoctorCheck) {
	r.Checks = append(r.Checks, c)
	r.OK = r.OK && c.OK
}

// DoctorEmbeddings is doctor's "embeddings" line: can the model named by
// --embed-model embed, and how many of the index's chunks have vectors. A
// model that cannot embed fails like the chat model does (exit 4); a
// backlog is no failure (search uses words alone for those chunks), but
// its fix says how to clear it. It costs one embedding (the identity's
// dimensions are that vector's, as a search learns them from its query)
// and no walk of the files: the index's own counts answer.
func DoctorEmbeddings(ctx context.Context, home string, e index.Embedder) DoctorCheck {
	c := DoctorCheck{Name: "embeddings", ollama: true}
	ctx, cancel := context.WithTimeout(ctx, doctorOllamaTimeout)
	defer cancel()
	vs, err := e.Embed(ctx, []string{"agent doctor"})
	if err == nil && (len(vs) != 1 || len(vs[0]) == 0) {
		err = fmt.Errorf("returned no vector")
	}
	var id string
	if err == nil {
		id, err = e.Identity(ctx)
	}
	if err != nil {
		c.Detail = fmt.Sprintf("%s: %v", e.Name(), err)
		c.Fix = "ollama pull " + e.Name() + " (or unset AGENT_EMBED_MODEL; search works by words alone)"
		return c
	}
	c.OK, c.ollama = true, false
	c.Detail = fmt.Sprintf("%s, %d dimensions", id, len(vs[0]))
	if _, err := os.Stat(filepath.Join(home, IndexFile)); errors.Is(err, os.ErrNotExist) {
		return c
	}
	ix, err := index.Open(ctx, home, nil)
	if err != nil {
		return c
	}
	defer ix.Close()
	st, err1 := ix.Summary(ctx)
	left, err2 := ix.EmbedBacklog(ctx)
	if err1 != nil || err2 != nil || st.Rebuild != "" {
		return c
	}
	if !ix.Embedded(ctx) {
		left = st.Chunks
	}
	c.Detail += fmt.Sprintf("; %d of %s embedded", st.Chunks-left, doctorPlural(st.Chunks, "chunk"))
	if left > 0 {
		c.Fix = "agent memory reindex (or keep agent memory watch running) embeds the rest"
	}
	return c
}
