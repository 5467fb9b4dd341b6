package importer

import (
	"agent/memory/secrets"
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// kindError is a complete message that still matches a sentinel with
// errors.Is, so it does not end in ": not an export".
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

func errorf(kind error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// ErrNotExport marks a file that is not the export asked for: a usage error.
var ErrNotExport = errors.New("not an export")

// maxExport bounds what is read of conversations.json; a real export of
// years of chats is tens of MB.
const maxExport = 1 << 30

// Parsed is an export read whole: nothing is written before all of it has
// parsed, so a truncated or foreign file changes nothing.
type Parsed struct {
	Origin        string
	Conversations []Conversation
	Skipped       int // conversations with no text
}

// ReadExport reads file — conversations.json, or the export's zip holding
// it — as an export of origin.
func ReadExport(file, origin string) (Parsed, error) {
	p := Parsed{Origin: origin}
	data, err := readConversationsJSON(file)
	if errors.Is(err, fs.ErrNotExist) {
		return p, errorf(ErrNotFound, "no file %s", file)
	}
	if err != nil {
		return p, err
	}
	if t := bytes.TrimLeft(data, " \t\r\n\xef\xbb\xbf"); len(t) == 0 || t[0] != '[' && t[0] != '{' {
		return p, errorf(ErrNotExport, "%s is not JSON: a %s export is its conversations.json, or the zip it came in", file, originName[origin])
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return p, errorf(ErrNotExport, "%s: truncated or invalid JSON (%v); nothing imported", file, err)
		case errors.As(err, &typ):
			return p, errorf(ErrNotExport, "%s: not a %s export (conversations.json holds an array of conversations); nothing imported", file, originName[origin])
		}
		return p, fmt.Errorf("%s: %w", file, err)
	}
	if other := guessOrigin(raw); other != "" && other != origin {
		return p, errorf(ErrNotExport, "%s is a %s export, not %s's (run: agent import %s %s)", file, originName[other], originName[origin], other, file)
	} else if other == "" && len(raw) > 0 {
		return p, errorf(ErrNotExport, "%s: not a %s export (its conversations have neither mapping nor chat_messages); nothing imported", file, originName[origin])
	}
	convert := readChatGPT
	if origin == Claude {
		convert = readClaude
	}
	for i, r := range raw {
		c, err := convert(i, r)
		if err != nil {
			return p, errorf(ErrNotExport, "%s: %v; nothing imported", file, err)
		}
		if !hasWords(c) { // a conversation with no text is skipped and counted
			p.Skipped++
			continue
		}
		p.Conversations = append(p.Conversations, redacted(c))
	}
	return p, nil
}

// redacted is c with every secret replaced by its marker — in the title
// (the file's name, heading and front matter) and the names of what a
// message carried too, not only in the words: secrets never land in
// memory, imported ones neither.
func redacted(c Conversation) Conversation {
	c.Title, _ = secrets.Redact(c.Title)
	msgs := make([]Message, len(c.Messages))
	for i, m := range c.Messages {
		m.Text, _ = secrets.Redact(m.Text)
		extras := make([]string, len(m.Extras))
		for j, x := range m.Extras {
			extras[j], _ = secrets.Redact(x)
		}
		m.Extras = extras
		msgs[i] = m
	}
	c.Messages = msgs
	return c
}

// hasWords says whether anyone said anything in c: a conversation of only
// attachments or tool calls is skipped.
func hasWords(c Conversation) bool {
	for _, m := range c.Messages {
		if strings.TrimSpace(m.Text) != "" {
			return true
		}
	}
	return false
}

// guessOrigin tells the two exports apart by the first conversation's
// fields: ChatGPT's have a mapping, Claude's chat_messages.
func guessOrigin(raw []json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(raw[0], &keys) != nil {
		return ""
	}
	switch {
	case keys["mapping"] != nil:
		return ChatGPT
	case keys["chat_messages"] != nil:
		return Claude
	}
	return ""
}

// readConversationsJSON returns conversations.json's bytes from file, the
// JSON itself or a zip with it (at its root, or the shallowest one).
func readConversationsJSON(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	if n == 4 && bytes.Equal(head, []byte("PK\x03\x04")) {
		fi, err := f.Stat()
		if err != nil {
			return nil, err
		}
		zr, err := zip.NewReader(f, fi.Size())
		if err != nil {
			return nil, errorf(ErrNotExport, "%s: a damaged zip (%v); nothing imported", file, err)
		}
		var best *zip.File
		for _, zf := range zr.File {
			if path.Base(zf.Name) == "conversations.json" && (best == nil || strings.Count(zf.Name, "/") < strings.Count(best.Name, "/")) {
				best = zf
			}
		}
		if best == nil {
			return nil, errorf(ErrNotExport, "%s: a zip without conversations.json; nothing imported", file)
		}
		rc, err := best.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", file, best.Name, err)
		}
		defer rc.Close()
		data, err := io.ReadAll(io.LimitReader(rc, maxExport+1))
		if err != nil {
			return nil, errorf(ErrNotExport, "%s: %s: %v (a truncated zip?); nothing imported", file, best.Name, err)
		}
		if len(data) > maxExport {
			return nil, fmt.Errorf("%s: %s is larger than 1 GiB", file, best.Name)
		}
		return data, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxExport+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxExport {
		return nil, fmt.Errorf("%s is larger than 1 GiB", file)
	}
	return data, nil
}
