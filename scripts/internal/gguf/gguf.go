// Package gguf writes the stand-in models the scripts build for a real
// `ollama serve` (scripts/tinymodel, scripts/glovemodel): F32 tensors in a
// GGUF file, written whole or not at all.
package gguf

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/ollama/ollama/fs/ggml"
)

// F32 is a tensor's data, written little-endian as GGUF stores it.
type F32 []float32

func (w F32) WriteTo(out io.Writer) (int64, error) {
	buf := make([]byte, 4*len(w))
	for i, v := range w {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
	}
	n, err := out.Write(buf)
	return int64(n), err
}

// Tensor is the F32 tensor name of the given shape holding data.
func Tensor(name string, data F32, shape ...uint64) *ggml.Tensor {
	return &ggml.Tensor{Name: name, Kind: 0 /* F32 */, Shape: shape, WriterTo: data}
}

// Filled is a tensor with every weight v: 0 for a weight that must not
// matter, 1 for a norm's scale.
func Filled(name string, v float32, shape ...uint64) *ggml.Tensor {
	n := uint64(1)
	for _, d := range shape {
		n *= d
	}
	data := make(F32, n)
	if v != 0 {
		for i := range data {
			data[i] = v
		}
	}
	return Tensor(name, data, shape...)
}

// Write writes the model to path through a temporary file renamed over
// it, so an interrupted run leaves no half model for a cache to reuse, and
// two runs writing the same path at once each leave a whole one.
func Write(path string, kv ggml.KV, ts []*ggml.Tensor) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	err = f.Chmod(0o644)
	if err == nil {
		err = ggml.WriteGGUF(f, kv, ts)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
