// Command tinymodel writes a tiny random-weight llama model that a real
// `ollama serve` (v0.9.6) loads and runs in well under a second on a CPU, plus
// the Modelfile to `ollama create` it. Its replies are noise; what it proves
// is the path: model check, num_ctx, streaming, prompt_eval_count.
//
//	go run ./scripts/tinymodel -o DIR   # writes DIR/tiny.gguf and DIR/Modelfile
//	go run ./scripts/tinymodel -vocab FILE -o DIR
//
// By default its vocabulary is one token per printable character, so a
// prompt costs about one token per character. With -vocab FILE (a JSON array
// of token strings in id order, SentencePiece style: <unk>, <s>, </s>, the
// 256 <0xXX> byte tokens, then pieces with ▁ for a space) it tokenizes like
// the model that vocabulary comes from, so prompt_eval_count is a real
// model's count (scripts/llama-vocab.sh provides LLaMA's 32,000 pieces).
//
// The weights come from a fixed seed, so the file is byte-for-byte the same
// on every run and machine for the same vocabulary.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/ollama/ollama/fs/ggml"

	"agent/scripts/internal/gguf"
)

// The model's shape: the smallest llama that llama.cpp accepts without
// complaint. Head dimension is embed/heads = 16.
const (
	embed         = 64
	heads         = 4
	feedForward   = 128
	blocks        = 1
	contextLength = 8192 // reported by /api/show as llama.context_length
	seed          = 20261122
)

// modelfile gives the model a chat template. It mentions .Tools so Ollama
// grants the "tools" capability and accepts requests that carry tool specs
// (agent chat always sends them); num_predict keeps replies short and fast.
const modelfile = `FROM ./tiny.gguf
TEMPLATE """{{- if .Tools }}<tools>{{ range .Tools }}{{ .Function.Name }} {{ end }}</tools>
{{ end }}{{ range .Messages }}<{{ .Role }}>{{ .Content }}
{{ end }}<assistant>"""
PARAMETER num_predict 8
PARAMETER seed 42
PARAMETER temperature 0.8
`

func main() {
	out := flag.String("o", ".", "directory to write tiny.gguf and Modelfile into")
	vocabFile := flag.String("vocab", "", "a JSON array of SentencePiece tokens in id order (default: printable characters)")
	tmplFile := flag.String("template", "", "a chat template for the Modelfile instead of the in-place one (core/ollamatest/templates)")
	ctx := flag.Int("ctx", contextLength, "the context length the model declares")
	flag.Parse()
	declaredCtx = *ctx
	mf := modelfile
	if *tmplFile != "" {
		t, err := os.ReadFile(*tmplFile)
		if err != nil || strings.Contains(string(t), `"""`) {
			fmt.Fprintf(os.Stderr, "tinymodel: template %s: unreadable or holds \"\"\": %v\n", *tmplFile, err)
			os.Exit(1)
		}
		_, rest, _ := strings.Cut(modelfile, "\nPARAMETER")
		mf = "FROM ./tiny.gguf\nTEMPLATE \"\"\"" + strings.TrimRight(string(t), "\n") + "\"\"\"\nPARAMETER" + rest
	}
	var tokens []string
	var scores []float32
	var types []int32
	if *vocabFile == "" {
		tokens, scores, types = vocabulary()
	} else {
		var err error
		if tokens, scores, types, err = readVocabulary(*vocabFile); err != nil {
			fmt.Fprintf(os.Stderr, "tinymodel: %v\n", err)
			os.Exit(1)
		}
	}
	if err := write(*out, mf, tokens, scores, types); err != nil {
		fmt.Fprintf(os.Stderr, "tinymodel: %v\n", err)
		os.Exit(1)
	}
}

// declaredCtx is the context length written into the model (-ctx).
var declaredCtx = contextLength

func write(dir, modelfile string, tokens []string, scores []float32, types []int32) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	kv := ggml.KV{
		"general.architecture":                   "llama",
		"general.name":                           "tiny",
		"general.file_type":                      uint32(ggml.FileTypeF32),
		"general.alignment":                      uint32(32),
		"llama.block_count":                      uint32(blocks),
		"llama.context_length":                   uint32(declaredCtx),
		"llama.embedding_length":                 uint32(embed),
		"llama.feed_forward_length":              uint32(feedForward),
		"llama.attention.head_count":             uint32(heads),
		"llama.attention.head_count_kv":          uint32(heads),
		"llama.attention.layer_norm_rms_epsilon": float32(1e-5),
		"llama.rope.dimension_count":             uint32(embed / heads),
		"llama.rope.freq_base":                   float32(10000),
		"llama.vocab_size":                       uint32(len(tokens)),
		"tokenizer.ggml.model":                   "llama",
		"tokenizer.ggml.tokens":                  tokens,
		"tokenizer.ggml.scores":                  scores,
		"tokenizer.ggml.token_type":              types,
		"tokenizer.ggml.unknown_token_id":        uint32(0),
		"tokenizer.ggml.bos_token_id":            uint32(1),
		"tokenizer.ggml.eos_token_id":            uint32(2),
		"tokenizer.ggml.add_bos_token":           true,
		"tokenizer.ggml.add_eos_token":           false,
	}
	if err := gguf.Write(filepath.Join(dir, "tiny.gguf"), kv, tensors(types)); err != nil {
		return err
	}
	mf := filepath.Join(dir, "Modelfile")
	if err := os.WriteFile(mf, []byte(modelfile), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", mf, err)
	}
	return nil
}

// Token types as llama.cpp numbers them.
const (
	typeNormal  int32 = 1
	typeUnknown int32 = 2
	typeControl int32 = 3
	typeByte    int32 = 6
)

// vocabulary is a SentencePiece-style vocabulary: the three control tokens,
// the 256 byte-fallback tokens, "▁" (a space) and every printable ASCII
// character. Any text tokenizes (one token per character, bytes otherwise),
// so prompt_eval_count is roughly the prompt's length in characters.
func vocabulary() ([]string, []float32, []int32) {
	tokens := []string{"<unk>", "<s>", "</s>"}
	types := []int32{typeUnknown, typeControl, typeControl}
	for b := 0; b < 256; b++ {
		tokens = append(tokens, fmt.Sprintf("<0x%02X>", b))
		types = append(types, typeByte)
	}
	tokens = append(tokens, "▁")
	types = append(types, typeNormal)
	for c := '!'; c <= '~'; c++ {
		tokens = append(tokens, string(c))
		types = append(types, typeNormal)
	}
	scores := make([]float32, len(tokens))
	for i := range scores {
		scores[i] = -float32(i)
	}
	return tokens, scores, types
}

// readVocabulary reads a SentencePiece vocabulary in id order. Types follow
// the convention every LLaMA-family vocabulary keeps: id 0 unknown, ids 1-2
// the control tokens, <0xXX> the byte-fallback tokens. Scores fall with the
// id: SentencePiece BPE numbers its pieces in merge order, so a lower id is
// an earlier (preferred) merge, which is what the tokenizer's greedy merge by
// score needs.
func readVocabulary(path string) ([]string, []float32, []int32, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, nil, err
	}
	var tokens []string
	if err := json.Unmarshal(data, &tokens); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: want a JSON array of strings: %w", path, err)
	}
	if len(tokens) < 3+256+1 || tokens[1] != "<s>" || tokens[2] != "</s>" || tokens[3] != "<0x00>" || tokens[258] != "<0xFF>" {
		return nil, nil, nil, fmt.Errorf("%s: not a SentencePiece vocabulary with byte fallback (<unk>, <s>, </s>, <0x00>…<0xFF> first)", path)
	}
	scores := make([]float32, len(tokens))
	types := make([]int32, len(tokens))
	for i := range tokens {
		scores[i] = -float32(i)
		switch {
		case i == 0:
			types[i] = typeUnknown
		case i < 3:
			types[i] = typeControl
		case i < 3+256:
			types[i] = typeByte
		default:
			types[i] = typeNormal
		}
	}
	return tokens, scores, types, nil
}

// tensors lists every weight of a one-block llama, filled from the fixed seed.
func tensors(types []int32) []*ggml.Tensor {
	vocab := uint64(len(types))
	rng := rand.New(rand.NewPCG(seed, seed))
	t := func(name string, shape ...uint64) *ggml.Tensor {
		n := uint64(1)
		for _, d := range shape {
			n *= d
		}
		w := make(gguf.F32, n)
		for i := range w {
			w[i] = float32(rng.NormFloat64() * 0.02)
		}
		return gguf.Tensor(name, w, shape...)
	}
	ones := func(name string) *ggml.Tensor { return gguf.Filled(name, 1, embed) }
	ts := []*ggml.Tensor{
		t("token_embd.weight", embed, vocab),
		ones("output_norm.weight"),
		output(rng, types),
	}
	for b := 0; b < blocks; b++ {
		p := fmt.Sprintf("blk.%d.", b)
		ts = append(ts,
			ones(p+"attn_norm.weight"),
			t(p+"attn_q.weight", embed, embed),
			t(p+"attn_k.weight", embed, embed),
			t(p+"attn_v.weight", embed, embed),
			t(p+"attn_output.weight", embed, embed),
			ones(p+"ffn_norm.weight"),
			t(p+"ffn_gate.weight", embed, feedForward),
			t(p+"ffn_up.weight", embed, feedForward),
			t(p+"ffn_down.weight", feedForward, embed),
		)
	}
	return ts
}

// output is the output projection, one row of logit weights per token. Only
// the printable-character tokens get (large) random rows; every other row is
// zero, so those tokens' logits sit far below the best printable one and are
// practically never sampled. Replies are then printable noise rather than
// control tokens or stray UTF-8 bytes, which Ollama would hold back and so
// leave the reply empty.
func output(rng *rand.Rand, types []int32) *ggml.Tensor {
	w := make(gguf.F32, embed*len(types))
	for tok, typ := range types {
		if typ != typeNormal {
			continue
		}
		for i := 0; i < embed; i++ {
			w[tok*embed+i] = float32(rng.NormFloat64())
		}
	}
	return gguf.Tensor("output.weight", w, embed, uint64(len(types)))
}
