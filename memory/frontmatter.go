package memory

import (
	"path"
	"strings"

	"agent/memory/printable"
	"gopkg.in/yaml.v3"
)

// frontMatter is what a note's YAML front matter says that the index uses:
// its title, and whether it holds anything worth a search (a title, tags or
// aliases). TOML front matter (+++) is indexed but not read.
type frontMatter struct {
	title    string
	indexed  bool
	lastLine int // the closing fence's line; 0 when there is no front matter
}

// readFrontMatter reads the front matter block of raw (BOM already off),
// whose length frontMatterLen gave as n.
func readFrontMatter(raw []byte, n int) frontMatter {
	if n == 0 {
		return frontMatter{}
	}
	block := string(raw[:n])
	fm := frontMatter{lastLine: strings.Count(strings.TrimRight(block, "\n"), "\n") + 1}
	first, body, _ := strings.Cut(block, "\n")
	if strings.TrimSpace(first) != "---" { // TOML: its title line is read, the rest indexed as it is
		for _, line := range strings.Split(body, "\n") {
			k, v, ok := strings.Cut(line, "=")
			switch strings.ToLower(strings.TrimSpace(k)) {
			case "title":
				if ok {
					fm.title = printable.OneLine(strings.Trim(strings.TrimSpace(v), `"'`))
				}
				fm.indexed = fm.indexed || fm.title != ""
			case "tags", "aliases", "keywords":
				fm.indexed = true
			}
		}
		return fm
	}
	if i := strings.LastIndex(strings.TrimRight(body, "\r\n"), "\n"); i >= 0 {
		body = body[:i] // the closing fence
	} else {
		body = ""
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte(body), &m); err != nil {
		return fm
	}
	for k, v := range m {
		switch strings.ToLower(k) {
		case "title":
			if s, ok := v.(string); ok {
				fm.title = printable.OneLine(s)
				fm.indexed = fm.indexed || fm.title != ""
			}
		case "tags", "tag", "aliases", "alias", "keywords":
			fm.indexed = fm.indexed || v != nil
		}
	}
	return fm
}

// noteTitle is how a note is cited when a chunk has no heading of its own:
// its front matter's title, else its first "# title" heading, else its file
// name without the extension (a later "## section" would misname a preamble).
func noteTitle(fmTitle, firstHeading, rel string) string {
	switch {
	case fmTitle != "":
		return fmTitle
	case firstHeading != "":
		return firstHeading
	}
	if _, in, ok := SplitSourcePath(rel); ok {
		rel = in // "vault:Note.md"
	}
	name := path.Base(rel)
	return strings.TrimSuffix(name, path.Ext(name))
}
