package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"agent/memory/confined"
	"agent/memory/errkind"
)

// SourcesFile lists the notes folders searched in place (agent memory
// sources): a small JSON file in the workspace, beside mcp.json, so the
// index, memory_read and the watcher read it without opening state.db.
const SourcesFile = "sources.json"

// Source is a folder of markdown notes outside the workspace that the index
// reads and never writes. Its notes are cited as "Name:relative/path.md".
type Source struct {
	Name string `json:"name"`
	Dir  string `json:"dir"` // absolute
}

var sourceName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{1,31}$`) })

// ValidSourceName refuses a name that could not prefix a citation: two to
// 32 lowercase letters, digits, "-" or "_" (one letter would read as a
// drive, "C:notes.md").
func ValidSourceName(name string) error {
	if !sourceName().MatchString(name) {
		return invalidf("source name %q: use 2-32 lowercase letters, digits, - or _, starting with a letter or digit", name)
	}
	return nil
}

// SplitSourcePath splits an index path "NAME:rel/path.md" into its source
// name and the path inside the source; ok is false for a workspace path.
func SplitSourcePath(p string) (name, rel string, ok bool) {
	i := strings.IndexByte(p, ':')
	if i < 0 || !sourceName().MatchString(p[:i]) {
		return "", "", false
	}
	return p[:i], p[i+1:], true
}

// LoadSources reads the workspace's source list; none when the file is
// missing.
func LoadSources(home string) ([]Source, error) {
	data, err := os.ReadFile(filepath.Join(home, SourcesFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", SourcesFile, err)
	}
	var f struct {
		Sources []Source `json:"sources"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("read %s: %w", SourcesFile, err)
	}
	for _, s := range f.Sources {
		if ValidSourceName(s.Name) != nil || !filepath.IsAbs(s.Dir) {
			return nil, fmt.Errorf("read %s: bad entry %q → %q (fix or remove it)", SourcesFile, s.Name, s.Dir)
		}
	}
	return f.Sources, nil
}

// AddSource records dir (made absolute; it must be a directory) under name.
// A name already used, or a folder inside the workspace (its notes would be
// indexed twice, or it is the workspace's own), is refused.
func AddSource(home, name, dir string) (Source, error) {
	if err := ValidSourceName(name); err != nil {
		return Source{}, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Source{}, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return Source{}, errkind.Errorf(ErrNotFound, "source %s: %v", name, unwrapPathError(err))
	}
	if !fi.IsDir() {
		return Source{}, invalidf("source %s: %s is not a directory", name, abs)
	}
	realDir, _ := filepath.EvalSymlinks(abs)
	realHome, _ := filepath.EvalSymlinks(home)
	if within(realHome, realDir) || within(realDir, realHome) {
		return Source{}, invalidf("source %s: %s overlaps the workspace %s; a source is a folder of your own notes elsewhere", name, abs, home)
	}
	src := Source{Name: name, Dir: abs}
	err = updateSources(home, func(list []Source) ([]Source, error) {
		for _, s := range list {
			if s.Name == name {
				return nil, invalidf("source %s already exists (%s); remove it first", name, s.Dir)
			}
		}
		return append(list, src), nil
	})
	return src, err
}

// RemoveSource forgets the source name; its notes leave the index at the
// next refresh. The folder itself is not touched.
func RemoveSource(home, name string) (Source, error) {
	var gone Source
	err := updateSources(home, func(list []Source) ([]Source, error) {
		i := slices.IndexFunc(list, func(s Source) bool { return s.Name == name })
		if i < 0 {
			return nil, errkind.Errorf(ErrNotFound, "no source named %q", name)
		}
		gone = list[i]
		return slices.Delete(list, i, i+1), nil
	})
	return gone, err
}

// updateSources rewrites sources.json atomically under the memory lock, so
// two commands changing the list at once do not lose one change.
func updateSources(home string, change func([]Source) ([]Source, error)) error {
	unlock, err := lock(home)
	if err != nil {
		return err
	}
	defer unlock()
	list, err := LoadSources(home)
	if err != nil {
		return err
	}
	list, err = change(list)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		Sources []Source `json:"sources"`
	}{Sources: append([]Source{}, list...)}); err != nil {
		return err
	}
	if err := confined.Replace(home, SourcesFile, b.Bytes(), nil); err != nil {
		return fmt.Errorf("write %s: %w", SourcesFile, err)
	}
	return nil
}

// within reports whether path is dir or below it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// FrontMatterDate is the date a note's YAML front matter gives it (date,
// created, or the first of them present), as "2006-01-02"; "" when none.
func FrontMatterDate(data []byte) string {
	data = bytes.TrimPrefix(data, bom)
	n := frontMatterLen(data)
	if n == 0 {
		return ""
	}
	found := map[string]string{}
	for _, line := range strings.Split(string(data[:n]), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		if len(v) >= 10 {
			if _, err := time.Parse(time.DateOnly, v[:10]); err == nil {
				found[k] = v[:10]
			}
		}
	}
	for _, k := range []string{"date", "created", "created_at", "creation_date"} {
		if d := found[k]; d != "" {
			return d
		}
	}
	return ""
}
