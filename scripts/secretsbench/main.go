// Command secretsbench measures memory/secrets (issue 33): over a corpus it
// builds itself — secrets of every kind in the forms people paste them, and
// code and notes that name tokens, keys and passwords without holding one,
// hashes, UUIDs, SSH public keys, base64 images — how many secrets are
// caught and how many negatives are touched (any byte changed); then how
// many markers it would insert into real text that holds no secret: the
// Go and Python standard libraries and the shared benchmark corpora.
// Prints a markdown table on stdout, each hit of the real-text scans on
// stderr (file:line kind and the line, cut to 160 bytes).
//
//	go run ./scripts/secretsbench                 # the corpus only
//	go run ./scripts/secretsbench -go /usr/local/go/src -py /usr/lib/python3.11 -data ../shared/bench/data
//
// make bench runs it with every tree it finds (scripts/bench.sh).
package main

import (
	"archive/tar"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"agent/memory/secrets"
)

func main() {
	goRoot := flag.String("go", "", "the Go standard library's source (GOROOT/src); its *.go files are scanned")
	pyRoot := flag.String("py", "", "the Python standard library; its *.py files are scanned")
	data := flag.String("data", "", "the shared benchmark data: its *.md files and the *.md inside its *.tar.gz are scanned")
	seed := flag.Uint64("seed", 33, "the corpus' random seed")
	verbose := flag.Bool("v", false, "print each missed positive and touched negative on stderr")
	flag.Parse()

	c := Run(*seed)
	if *verbose {
		for _, m := range c.Missed {
			fmt.Fprintf(os.Stderr, "secretsbench: missed %s: %q\n", m.kind, m.text)
		}
		for _, t := range c.Touched {
			fmt.Fprintf(os.Stderr, "secretsbench: touched: %q\n", t)
		}
	}
	fmt.Println("| secrets corpus (memory/secrets) | result | target |")
	fmt.Println("|---|---|---|")
	fmt.Printf("| positives caught | %d / %d (%.1f%%) | ≥ 95%% |\n", c.Caught, c.Positives, 100*float64(c.Caught)/float64(c.Positives))
	fmt.Printf("| negatives touched | %d / %d | 0 |\n", len(c.Touched), c.Negatives)
	fmt.Printf("| kinds covered | %d | |\n", c.Kinds)
	status := 0
	if c.Caught*100 < c.Positives*95 || len(c.Touched) > 0 {
		status = 1
	}
	site := ""
	if *pyRoot != "" {
		site = filepath.Join(*pyRoot, "site-packages")
	}
	for _, tree := range []struct{ name, root, ext, skip string }{
		{"Go standard library", *goRoot, ".go", ""},
		{"Python standard library", *pyRoot, ".py", site},
		{"Python packages installed beside it (site-packages)", site, ".py", ""},
		{"shared benchmark data", *data, ".md", ""},
	} {
		if tree.root == "" {
			continue
		}
		if _, err := os.Stat(tree.root); err != nil && tree.root == site {
			continue
		}
		files, markers, err := scanTree(tree.root, tree.ext, tree.skip)
		if err != nil {
			fmt.Fprintf(os.Stderr, "secretsbench: %s: %v\n", tree.root, err)
			status = 1
			continue
		}
		fmt.Printf("| markers in the %s (%d %s files) | %d | ~0 |\n", tree.name, files, tree.ext, markers)
	}
	os.Exit(status)
}

// Result is one run over the corpus.
type Result struct {
	Positives, Caught, Negatives, Kinds int
	Missed                              []positive
	Touched                             []string
}

// Run builds the corpus from seed and redacts every item of it.
func Run(seed uint64) Result {
	var c Result
	kinds := map[string]bool{}
	for _, p := range Positives(seed) {
		c.Positives++
		kinds[p.kind] = true
		if got, _ := secrets.Redact(p.text); !strings.Contains(got, p.secret) {
			c.Caught++
		} else {
			c.Missed = append(c.Missed, p)
		}
	}
	for _, n := range Negatives(seed) {
		c.Negatives++
		if got, _ := secrets.Redact(n); got != n {
			c.Touched = append(c.Touched, n)
		}
	}
	c.Kinds = len(kinds)
	return c
}

// scanTree redacts every file under root whose name ends in ext (and, for
// .md, every .md inside a .tar.gz; the folder skip left out), and counts
// the markers it would insert.
func scanTree(root, ext, skip string) (files, markers int, err error) {
	check := func(name, text string) {
		files++
		for _, f := range secrets.Find(text) {
			markers++
			line := strings.Count(text[:f.Start], "\n") + 1
			ls := strings.LastIndexByte(text[:f.Start], '\n') + 1
			le := strings.IndexByte(text[f.Start:], '\n')
			if le < 0 {
				le = len(text) - f.Start
			}
			l := text[ls : f.Start+le]
			if len(l) > 160 {
				l = l[:160]
			}
			fmt.Fprintf(os.Stderr, "secretsbench: %s:%d %s: %s\n", name, line, f.Kind, l)
		}
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == skip {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(p, ext):
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			check(p, string(b))
		case ext == ".md" && strings.HasSuffix(p, ".tar.gz"):
			return scanTarball(p, check)
		}
		return nil
	})
	return files, markers, err
}

func scanTarball(p string, check func(name, text string)) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if !strings.HasSuffix(h.Name, ".md") {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		check(p+":"+h.Name, string(b))
	}
}
