package memory

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"agent/memory/printable"
)

// Supersede marks line (1-based) of MEMORY.md as superseded and puts the
// fact that replaces it right below, in one atomic rewrite under the memory
// lock: the old line is kept word for word with note appended, so nothing is
// lost and both sources stay readable. The line must still read exactly
// expect (trailing blanks aside), or the file changed since the caller read
// it and nothing is written (ErrInvalid). fact becomes a list item indented
// like the old line.
func Supersede(home string, line int, expect, note, fact string) (AppendResult, error) {
	res := AppendResult{Path: memoryFile}
	note = printable.OneLine(note)
	fact = printable.OneLine(fact)
	if fact == "" || note == "" {
		return res, fmt.Errorf("supersede in %s: empty fact or note: %w", memoryFile, ErrInvalid)
	}
	unlock, err := lock(home)
	if err != nil {
		return res, err
	}
	defer unlock()
	path := filepath.Join(home, memoryFile)
	if err := insideWorkspace(home, path); err != nil {
		return res, fmt.Errorf("supersede in %s: %w", memoryFile, err)
	}
	for attempt := 0; ; attempt++ {
		data, existed, err := readForUpdate(path)
		if err != nil {
			return res, fmt.Errorf("supersede in %s: %w", path, err)
		}
		lines := bytes.SplitAfter(data, []byte("\n"))
		if line < 1 || line > len(lines) {
			return res, fmt.Errorf("supersede in %s: no line %d: %w", memoryFile, line, ErrInvalid)
		}
		old := string(lines[line-1])
		body := strings.TrimRight(old, " \t\r\n")
		if body != strings.TrimRight(expect, " \t\r\n") {
			return res, fmt.Errorf("supersede in %s: line %d changed since it was read: %w", memoryFile, line, ErrInvalid)
		}
		eol := lineEnding(data)
		indent := body[:len(body)-len(strings.TrimLeft(body, " \t"))]
		var b bytes.Buffer
		for _, l := range lines[:line-1] {
			b.Write(l)
		}
		b.WriteString(body + " " + note + eol)
		b.WriteString(indent + "- " + escapeHeading(fact) + eol)
		for _, l := range lines[line:] {
			b.Write(l)
		}
		res.StartLine, res.EndLine = line, line+1
		err = replaceFile(home, memoryFile, b.Bytes(), func() bool { return unchanged(path, existed, data) })
		if errors.Is(err, errChanged) && attempt < 3 {
			continue
		}
		return res, err
	}
}

// ReplaceMemory writes data as the whole of MEMORY.md, atomically and under
// the memory lock. Only a user's explicit choice uses it (reverting to a
// recorded revision); the agent's own changes append or annotate.
func ReplaceMemory(home string, data []byte) error {
	unlock, err := lock(home)
	if err != nil {
		return err
	}
	defer unlock()
	path := filepath.Join(home, memoryFile)
	if err := insideWorkspace(home, path); err != nil {
		return fmt.Errorf("write %s: %w", memoryFile, err)
	}
	_, err = os.Stat(path)
	if errors.Is(err, os.ErrNotExist) { // no MEMORY.md to replace: a new file, written whole at once
		return appendBytes(home, memoryFile, data)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", memoryFile, err)
	}
	return replaceFile(home, memoryFile, data, func() bool { return true })
}
