package ollamatest

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/ollama/ollama/api"
)

// NomicEmbed is an embedding model as `ollama pull nomic-embed-text` gives
// it; its fake vectors have EmbeddingLength dimensions.
func NomicEmbed() Model {
	return Model{
		Name: "nomic-embed-text:latest", ContextLength: 2048, Family: "nomic-bert",
		ParameterSize: "137M", Quantization: "F16", Capabilities: []string{"embedding"},
		EmbeddingLength: 256,
	}
}

// Synonyms are the words the fake embedding model takes for one meaning
// (each word's vector is its group's), so a behaviour test can ask in words
// its notes do not use: "kids" meets "children".
var Synonyms = [][]string{
	{"kids", "kid", "children", "child"},
	{"boss", "manager"},
	{"heating", "boiler", "radiator"},
	{"car", "automobile", "vehicle"},
}

// embed answers /api/embed as Ollama v0.9.6 does: input is a string or an
// array of strings, every installed model can embed, the vectors are
// normalised. The fake's vector of a text is the normalised sum of its
// words' hashed directions (a word's synonyms share one), so texts sharing
// words or meanings are close and others nearly orthogonal.
func (s *Server) embed(w http.ResponseWriter, r *http.Request) {
	var req api.EmbedRequest
	if !decode(w, r, &req) {
		return
	}
	m, ok := s.installed(w, req.Model)
	if !ok {
		return
	}
	var input []string
	switch in := req.Input.(type) {
	case nil:
	case string:
		if in != "" {
			input = []string{in}
		}
	case []any:
		for _, v := range in {
			t, ok := v.(string)
			if !ok {
				writeError(w, http.StatusBadRequest, "invalid input type")
				return
			}
			input = append(input, t)
		}
	default:
		writeError(w, http.StatusBadRequest, "invalid input type")
		return
	}
	for _, t := range input {
		if t == "" {
			writeError(w, http.StatusBadRequest, "input cannot be empty")
			return
		}
	}
	s.mu.Lock()
	s.embeds = append(s.embeds, input)
	s.mu.Unlock()
	resp := api.EmbedResponse{Model: req.Model, Embeddings: [][]float32{}, TotalDuration: time.Millisecond}
	tokens := 0
	for _, t := range input {
		resp.Embeddings = append(resp.Embeddings, FakeVector(t, embeddingLength(m)))
		tokens += (len([]rune(t)) + 3) / 4
	}
	resp.PromptEvalCount = tokens
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	json.NewEncoder(w).Encode(resp)
}

func embeddingLength(m Model) int {
	if m.EmbeddingLength > 0 {
		return m.EmbeddingLength
	}
	return 3072
}

// FakeVector is the fake model's vector of text, dims long.
func FakeVector(text string, dims int) []float32 {
	v := make([]float64, dims)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		for _, g := range Synonyms {
			for _, s := range g {
				if s == w {
					w = g[0]
				}
			}
		}
		h := fnv.New64a()
		h.Write([]byte(w))
		x := h.Sum64()
		for range 2 { // two signed buckets a word
			b := int(x % uint64(dims))
			x /= uint64(dims)
			sign := 1.0
			if x&1 == 1 {
				sign = -1
			}
			x >>= 1
			v[b] += sign
		}
	}
	var n float64
	for _, x := range v {
		n += x * x
	}
	out := make([]float32, dims)
	if n == 0 {
		return out
	}
	n = math.Sqrt(n)
	for i, x := range v {
		out[i] = float32(x / n)
	}
	return out
}

// Embeds returns the inputs of every /api/embed request received so far.
func (s *Server) Embeds() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]string(nil), s.embeds...)
}
