// Package embed is the embedding model behind the index's optional vector
// search: a model the user pulled into Ollama (`ollama pull
// nomic-embed-text`), asked through /api/embed, many texts per request.
package embed

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/envconfig"
	"github.com/ollama/ollama/types/model"

	"agent/index"
)

// EnvVar names the embedding model when --embed-model is not given.
const EnvVar = "AGENT_EMBED_MODEL"

// identityTTL is how long a long-lived process (the REPL, watch) trusts the
// model's identity before asking again: a re-pulled model has new weights,
// and its vectors must not be compared with the old ones.
const identityTTL = time.Minute

// Ollama is an index.Embedder served by Ollama. Safe for concurrent use.
type Ollama struct {
	client *api.Client
	host   string
	name   string

	mu   sync.Mutex
	id   string
	idAt time.Time
	dims int // the length of the vectors the model returned
}

var _ index.Embedder = (*Ollama)(nil)

// New returns the embedder for model name at OLLAMA_HOST (read as Ollama
// reads it). Nothing is asked of the server until it is used.
func New(name string) (*Ollama, error) {
	name = strings.TrimSpace(name)
	n := model.ParseName(name)
	if !n.IsValid() {
		return nil, fmt.Errorf("embedding model name %q: want NAME or NAME:TAG, e.g. nomic-embed-text", name)
	}
	base := envconfig.Host()
	if base.Scheme != "http" && base.Scheme != "https" {
		return nil, fmt.Errorf("OLLAMA_HOST=%q: scheme must be http or https", envconfig.Var("OLLAMA_HOST"))
	}
	return &Ollama{client: api.NewClient(base, &http.Client{}), host: base.String(), name: n.DisplayShortest()}, nil
}

// Host is the server's base URL, as used in messages.
func (o *Ollama) Host() string { return o.host }

// Name is the model as Ollama lists it ("nomic-embed-text:latest").
func (o *Ollama) Name() string { return o.name }

// Identity is "name@digest/dimensions": the digest of the installed
// weights (from /api/tags) and the length of their vectors, so vectors of
// another pull or another model are never compared with these. The
// length is the last Embed's; before any, one vector is asked for (a
// search embeds its query first, so it never pays for that). Not
// /api/show: it reads the whole vocabulary out of the model file.
func (o *Ollama) Identity(ctx context.Context) (string, error) {
	o.mu.Lock()
	fresh := o.id != "" && time.Since(o.idAt) < identityTTL
	id, dims := o.id, o.dims
	o.mu.Unlock()
	if fresh {
		return id, nil
	}
	list, err := o.client.List(ctx)
	if err != nil {
		return "", o.explain(err)
	}
	digest := ""
	for _, m := range list.Models {
		if strings.EqualFold(model.ParseName(m.Name).DisplayShortest(), o.name) {
			digest = m.Digest
		}
	}
	if digest == "" {
		return "", notPulled(o.name)
	}
	if dims == 0 {
		vs, err := o.Embed(ctx, []string{"dimensions"})
		if err != nil {
			return "", err
		}
		dims = len(vs[0])
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.id = fmt.Sprintf("%s@%.12s/%d", o.name, digest, dims)
	o.idAt = time.Now()
	return o.id, nil
}

// Embed asks for the vectors of texts in one request.
func (o *Ollama) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	resp, err := o.client.Embed(ctx, &api.EmbedRequest{Model: o.name, Input: texts})
	if err != nil {
		return nil, o.explain(err)
	}
	if len(resp.Embeddings) != len(texts) {
		return nil, fmt.Errorf("%s returned %d vectors for %d texts", o.name, len(resp.Embeddings), len(texts))
	}
	for _, v := range resp.Embeddings {
		if len(v) == 0 || len(v) != len(resp.Embeddings[0]) {
			return nil, fmt.Errorf("%s returned vectors of different lengths", o.name)
		}
	}
	o.mu.Lock()
	if o.dims != len(resp.Embeddings[0]) {
		o.dims, o.id = len(resp.Embeddings[0]), "" // another length: another identity
	}
	o.mu.Unlock()
	return resp.Embeddings, nil
}

func notPulled(name string) error {
	return fmt.Errorf("model %s is not installed (ollama pull %s)", name, name)
}

// explain words the errors a user can act on.
func (o *Ollama) explain(err error) error {
	var se api.StatusError
	switch {
	case errors.As(err, &se) && se.StatusCode == http.StatusNotFound:
		return notPulled(o.name)
	case errors.As(err, &se):
		return fmt.Errorf("Ollama at %s: %s", o.host, strings.TrimSpace(se.ErrorMessage))
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("Ollama at %s did not answer in time", o.host)
	case strings.Contains(err.Error(), "connection refused"):
		return fmt.Errorf("Ollama is not running at %s (start it with: ollama serve)", o.host)
	}
	return fmt.Errorf("Ollama at %s: %w", o.host, err)
}
