package importer

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"agent/memory/errkind"
	"agent/memory/printable"
	"agent/memory/secrets"
)

// ErrNotExport marks a file that is not the export asked for: a usage error.
var ErrNotExport = errors.New("not an export")

// Limits of what an export may be. A real export of years of chats is tens
// of MB, a few hundred at most; one conversation is at most a few MB. The
// export is read as a stream, one conversation at a time, so memory follows
// the largest conversation and the words kept, not the file's size; the
// bounds refuse a file (or a zip entry that inflates to one) that no
// service wrote before it is read whole.
type limits struct {
	export       int64 // conversations.json, as read or as a zip declares it
	conversation int64 // one conversation's JSON
}

var defaultLimits = limits{export: 1 << 30, conversation: 256 << 20}

// Parsed is an export read whole: nothing is written before all of it has
// parsed, so a truncated or foreign file changes nothing.
type Parsed struct {
	Origin        string
	Conversations []Conversation
	Skipped       int       // conversations with no text
	Unreadable    []Problem // conversations that could not be read, each skipped by itself
	Notes         []Problem // conversations read, with something said about how
	Counts        Counts
}

// Counts are an export's messages and the parts of them, by kind: the words
// imported as text, what is named by a marker, and what is left out. Every
// part is in one of them: nothing is dropped without a count.
type Counts struct {
	Text    map[string]int `json:"text"`
	Named   map[string]int `json:"named"`
	LeftOut map[string]int `json:"left_out"`
}

func newCounts() Counts {
	return Counts{Text: map[string]int{}, Named: map[string]int{}, LeftOut: map[string]int{}}
}

func (c Counts) add(o Counts) {
	for k, n := range o.Text {
		c.Text[k] += n
	}
	for k, n := range o.Named {
		c.Named[k] += n
	}
	for k, n := range o.LeftOut {
		c.LeftOut[k] += n
	}
}

// Problem names a conversation of the export, and what went wrong with it,
// in the user's terms.
type Problem struct {
	Index int    `json:"index"` // 1-based, in the export's order
	ID    string `json:"id,omitempty"`
	Title string `json:"title,omitempty"`
	Why   string `json:"why"`
}

func (p Problem) String() string {
	s := fmt.Sprintf("conversation %d", p.Index)
	if p.Title != "" {
		s += fmt.Sprintf(" (%q)", printable.OneLine(p.Title))
	} else if p.ID != "" {
		s += " (" + p.ID + ")"
	}
	return s + ": " + p.Why
}

// tally counts one conversation's messages by kind as it is read.
type tally struct{ Counts }

func newTally() *tally { return &tally{newCounts()} }

func (t *tally) text(kind string)    { t.Text[kind]++ }
func (t *tally) named(kind string)   { t.Named[kind]++ }
func (t *tally) leftOut(kind string) { t.LeftOut[kind]++ }

// ReadExport reads file — conversations.json, the export's zip holding it,
// or a single conversation saved on its own — as an export of origin.
func ReadExport(file, origin string) (Parsed, error) {
	return readExport(file, origin, defaultLimits)
}

func readExport(file, origin string, lim limits) (Parsed, error) {
	p := Parsed{Origin: origin, Counts: newCounts()}
	r, closer, err := openConversationsJSON(file, lim)
	if errors.Is(err, fs.ErrNotExist) {
		return p, errkind.Errorf(ErrNotFound, "no file %s", file)
	}
	if err != nil {
		return p, err
	}
	defer closer.Close()
	counted := &countingReader{r: r, lim: lim}
	br := bufio.NewReaderSize(counted, 64<<10)
	bad := func(err error) error {
		var syn *json.SyntaxError
		switch {
		case errors.Is(err, errTooLarge):
			return errkind.Errorf(ErrNotExport, "%s: %v; nothing imported", file, err)
		case errors.As(err, &syn):
			return errkind.Errorf(ErrNotExport, "%s: truncated or invalid JSON (%v at byte %d); nothing imported", file, err, syn.Offset)
		case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
			return errkind.Errorf(ErrNotExport, "%s: truncated or invalid JSON (unexpected end of JSON input); nothing imported", file)
		case errors.Is(err, zip.ErrFormat), errors.Is(err, zip.ErrChecksum):
			return errkind.Errorf(ErrNotExport, "%s: %v (a truncated zip?); nothing imported", file, err)
		}
		var corrupt flate.CorruptInputError
		if errors.As(err, &corrupt) {
			return errkind.Errorf(ErrNotExport, "%s: %v (a truncated zip?); nothing imported", file, err)
		}
		return fmt.Errorf("%s: %w", file, err)
	}
	first, err := firstByte(br)
	if err != nil && !errors.Is(err, io.EOF) {
		return p, bad(err) // a damaged zip, a file too large: said as such, not "not JSON"
	}
	if err != nil || first != '[' && first != '{' {
		return p, errkind.Errorf(ErrNotExport, "%s is not JSON: a %s export is its conversations.json, or the zip it came in", file, originName[origin])
	}
	dec := json.NewDecoder(br)
	i := 0
	one := func(raw json.RawMessage) error {
		i++
		if i == 1 {
			if other := guessOrigin(raw); other != "" && other != origin {
				return errkind.Errorf(ErrNotExport, "%s is a %s export, not %s's (run: agent import %s %s)", file, originName[other], originName[origin], other, file)
			} else if other == "" {
				if first == '{' {
					return errkind.Errorf(ErrNotExport, "%s: not a %s export (a conversations.json holds a list of conversations, or one conversation); nothing imported", file, originName[origin])
				}
				return errkind.Errorf(ErrNotExport, "%s: not a %s export (its conversations have neither mapping nor chat_messages); nothing imported", file, originName[origin])
			}
		}
		p.add(i, raw)
		return nil
	}
	if first == '{' { // one conversation saved on its own
		counted.start()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, errConversationTooLarge) {
				return p, errkind.Errorf(ErrNotExport, "%s: the conversation is larger than %s, more than any export holds; nothing imported", file, size(lim.conversation))
			}
			return p, bad(err)
		}
		if err := one(raw); err != nil {
			return p, err
		}
	} else {
		if _, err := dec.Token(); err != nil { // the [
			return p, bad(err)
		}
		for dec.More() {
			counted.start() // each conversation is bounded by itself
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				if errors.Is(err, errConversationTooLarge) {
					return p, errkind.Errorf(ErrNotExport, "%s: conversation %d is larger than %s, more than any export holds; nothing imported", file, i+1, size(lim.conversation))
				}
				return p, bad(err)
			}
			if err := one(raw); err != nil {
				return p, err
			}
		}
		if _, err := dec.Token(); err != nil { // the ]
			return p, bad(err)
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			return p, errkind.Errorf(ErrNotExport, "%s: more JSON after the conversations; nothing imported", file)
		}
		return p, bad(err)
	}
	if i > 0 && len(p.Unreadable) == i {
		var why []string
		for _, u := range firstProblems(p.Unreadable, 3) {
			why = append(why, u.String())
		}
		return p, errkind.Errorf(ErrNotExport, "%s: not one conversation could be read (%s); nothing imported", file, strings.Join(why, "; "))
	}
	return p, nil
}

func firstProblems(p []Problem, n int) []Problem { return p[:min(n, len(p))] }

// add converts conversation i (1-based) of the export: kept when it has
// words, counted when it has none, named with why when it cannot be read.
func (p *Parsed) add(i int, raw json.RawMessage) {
	convert := readChatGPT
	if p.Origin == Claude {
		convert = readClaude
	}
	// A conversation that cannot be read counts nothing: its messages are
	// named once, as the conversation's.
	t := newTally()
	c, notes, err := convert(raw, t)
	if err != nil {
		p.Unreadable = append(p.Unreadable, Problem{Index: i, ID: c.ID, Title: c.Title, Why: unreadable(err)})
		return
	}
	p.Counts.add(t.Counts)
	for _, n := range notes {
		p.Notes = append(p.Notes, Problem{Index: i, ID: c.ID, Title: c.Title, Why: n})
	}
	if !hasWords(c) { // a conversation with no text is skipped and counted
		p.Skipped++
		return
	}
	p.Conversations = append(p.Conversations, redacted(c))
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
func guessOrigin(raw json.RawMessage) string {
	var keys map[string]json.RawMessage
	if json.Unmarshal(raw, &keys) != nil {
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

// errTooLarge is an export beyond limits; errConversationTooLarge one
// conversation.
var (
	errTooLarge             = errors.New("too large")
	errConversationTooLarge = errors.New("conversation too large")
)

// countingReader stops reading beyond the export's bound, and beyond one
// conversation's since start.
type countingReader struct {
	r       io.Reader
	lim     limits
	n, from int64
	counted bool // from is set: a conversation is being read
}

func (c *countingReader) start() { c.from, c.counted = c.n, true }

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	switch {
	case c.n > c.lim.export:
		return n, errkind.Errorf(errTooLarge, "conversations.json is larger than %s, more than any export holds", size(c.lim.export))
	case c.counted && c.n-c.from > c.lim.conversation+64<<10: // + the buffer's read-ahead
		return n, errConversationTooLarge
	}
	return n, err
}

// size says a bound in GiB, MiB or bytes.
func size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// firstByte is the first byte of the JSON, past a byte order mark and
// blanks, left unread.
func firstByte(br *bufio.Reader) (byte, error) {
	if b, err := br.Peek(3); err == nil && string(b) == "\xef\xbb\xbf" {
		br.Discard(3)
	}
	for {
		b, err := br.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			br.Discard(1)
			continue
		}
		return b[0], nil
	}
}

// openConversationsJSON opens conversations.json in file, the JSON itself
// or a zip with it (at its root, or the shallowest one). A zip entry's
// declared size is checked before it is read, and what it inflates to is
// held to that size (archive/zip) and to the bound (countingReader).
func openConversationsJSON(file string, lim limits) (io.Reader, io.Closer, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	if n < 4 || !bytes.Equal(head, []byte("PK\x03\x04")) {
		if fi.Size() > lim.export {
			f.Close()
			return nil, nil, errkind.Errorf(ErrNotExport, "%s is %.1f GiB, more than the %s any export holds; nothing imported", file, float64(fi.Size())/(1<<30), size(lim.export))
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			f.Close()
			return nil, nil, err
		}
		return f, f, nil
	}
	zr, err := zip.NewReader(f, fi.Size())
	if err != nil {
		f.Close()
		return nil, nil, errkind.Errorf(ErrNotExport, "%s: a damaged zip (%v); nothing imported", file, err)
	}
	var best *zip.File
	for _, zf := range zr.File {
		if path.Base(zf.Name) == "conversations.json" && (best == nil || strings.Count(zf.Name, "/") < strings.Count(best.Name, "/")) {
			best = zf
		}
	}
	if best == nil {
		f.Close()
		return nil, nil, errkind.Errorf(ErrNotExport, "%s: a zip without conversations.json; nothing imported", file)
	}
	if best.UncompressedSize64 > uint64(lim.export) {
		f.Close()
		return nil, nil, errkind.Errorf(ErrNotExport, "%s: its %s would inflate to %.1f GiB, more than the %s any export holds; nothing imported",
			file, best.Name, float64(best.UncompressedSize64)/(1<<30), size(lim.export))
	}
	rc, err := best.Open()
	if err != nil {
		f.Close()
		return nil, nil, errkind.Errorf(ErrNotExport, "%s: %s: %v; nothing imported", file, best.Name, err)
	}
	return rc, closers{rc, f}, nil
}

type closers []io.Closer

func (cs closers) Close() error {
	for _, c := range cs {
		c.Close()
	}
	return nil
}
