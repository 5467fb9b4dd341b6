package memory

import (
	"bytes"
	"fmt"
	"path"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// DefaultTargetChars is the size, in bytes of source text, a chunk grows to
// before a long section is split between blocks. It is what the index ships
// with, chosen by measuring evidence recall on LoCoMo
// (docs/decisions-index.md); the golden tests use it, so they test what ships.
const DefaultTargetChars = 600

// HeadingSep joins the levels of a chunk's heading path.
const HeadingSep = " › "

// ChunkOptions tunes ChunkFile. The zero value is the default.
type ChunkOptions struct {
	TargetChars int    // 0 means DefaultTargetChars
	Date        string // the chunks' date when the file's name gives none
}

// markdownParser returns the one goldmark parser all calls share. Building a
// parser costs more than parsing a small note; goldmark keeps all per-parse
// state in a parser.Context created by each Parse call, so the parser itself
// is read-only after its first use and safe for concurrent goroutines (the
// race test in chunker_test.go checks this).
var markdownParser = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...))
})

var bom = []byte("\xef\xbb\xbf")

// ChunkFile cuts one memory file into heading-aware chunks. rel is the
// workspace-relative slash path; a log's date comes from its name
// (logs/YYYY-MM-DD.md). A chunk is a heading section or, when the section is
// longer than the target, a run of whole blocks; fenced code, paragraphs and
// other leaf blocks are never cut, a long list or quote is split between its
// items. Line numbers are 1-based and count every line of the file, front
// matter included; Text is exactly lines StartLine..EndLine joined by "\n"
// (a "\r" before a line end and a leading UTF-8 BOM are not part of a line).
// Files that are not valid UTF-8 text fail with ErrInvalid.
func ChunkFile(rel string, data []byte, opts ChunkOptions) ([]Chunk, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("chunk %s: not valid UTF-8: %w", rel, ErrInvalid)
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return nil, fmt.Errorf("chunk %s: NUL byte at offset %d (binary file?): %w", rel, i, ErrInvalid)
	}
	target := opts.TargetChars
	if target <= 0 {
		target = DefaultTargetChars
	}
	c := newChunker(data)
	if len(c.lines) == 0 {
		return nil, nil
	}
	c.target, c.path, c.date = target, rel, LogDate(rel)
	if c.date == "" {
		c.date = opts.Date
	}
	if c.date != "" && strings.HasPrefix(rel, digestsDir+"/") {
		// A digest's bullets are separate items, each citing its own
		// source: a chunk each, so a hit costs one item, not the digest.
		c.target = 1
	}
	c.walk(c.parse())
	// An imported conversation is titled by its own top heading, under
	// which every chunk stands; its front matter (id, origin, date) is
	// the importer's bookkeeping, not a note's title or tags.
	if (c.date == "" || !inNoteDir(rel)) && !strings.HasPrefix(rel, ImportsDir+"/") {
		c.titled(rel)
	}
	return c.out, nil
}

// titled makes a note's front matter searchable and gives its chunks
// without a heading the note's title (noteTitle): the front matter, when
// it holds a title, tags or aliases, is a chunk of its own, first, cited
// by the title; its lines are the file's as always.
func (c *chunker) titled(rel string) {
	fm := readFrontMatter(c.data[c.first:], c.base-c.first)
	title := noteTitle(fm.title, c.firstHeading, rel)
	for i := range c.out {
		if c.out[i].Heading == "" {
			c.out[i].Heading = title
		}
	}
	if fm.indexed {
		s := span{1, fm.lastLine}
		c.out = append([]Chunk{{Path: c.path, StartLine: s.start, EndLine: s.end, Heading: title, Date: c.date, Text: c.text(s)}}, c.out...)
	}
}

// LogDate returns the date of a daily log from its workspace-relative path,
// "logs/2026-11-20.md" → "2026-11-20"; a digest's is the first day of its
// period (digestDate); "" for any other file.
func LogDate(rel string) string {
	dir, name := path.Split(rel)
	if dir == "digests/" {
		return digestDate(name)
	}
	if dir != "logs/" || len(name) != len("2006-01-02.md") || !strings.HasSuffix(name, ".md") {
		return ""
	}
	d := name[:10]
	for i := 0; i < len(d); i++ {
		if i == 4 || i == 7 {
			if d[i] != '-' {
				return ""
			}
		} else if d[i] < '0' || d[i] > '9' {
			return ""
		}
	}
	return d
}

// lineStarts returns the byte offset where each line begins; lines end at
// "\n", and a final "\n" does not open an empty extra line. One allocation per
// file, none per line beyond the slice's growth.
func lineStarts(data []byte) []int {
	if len(data) == 0 {
		return nil
	}
	starts := make([]int, 1, bytes.Count(data, []byte{'\n'})+1)
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 || i+j+1 >= len(data) {
			break
		}
		i += j + 1
		starts = append(starts, i)
	}
	return starts
}

// frontMatterLen returns the length of a YAML (---) or TOML (+++) front
// matter block at the start of b, closing line included, or 0 when there is
// none. An opening fence that is never closed is not front matter: goldmark
// then sees a thematic break, as any markdown viewer would.
func frontMatterLen(b []byte) int {
	first, rest, ok := cutLine(b)
	if !ok {
		return 0
	}
	var closers []string
	switch string(trimLineEnd(first)) {
	case "---":
		closers = []string{"---", "..."}
	case "+++":
		closers = []string{"+++"}
	default:
		return 0
	}
	n := len(b) - len(rest)
	for len(rest) > 0 {
		line, next, _ := cutLine(rest)
		n += len(line)
		rest = next
		l := string(trimLineEnd(line))
		for _, c := range closers {
			if l == c {
				return n
			}
		}
	}
	return 0
}

// cutLine splits off b's first line, "\n" included; ok is false when b has
// no line end (a one-line file cannot hold front matter).
func cutLine(b []byte) (line, rest []byte, ok bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil, false
	}
	return b[:i+1], b[i+1:], true
}

// trimLineEnd drops the line terminator and trailing blanks.
func trimLineEnd(b []byte) []byte { return bytes.TrimRight(b, " \t\r\n") }

// chunker holds one file's state while its top-level blocks are walked.
type chunker struct {
	data   []byte // the whole file
	lines  []int  // lineStarts(data)
	first  int    // offset of line 1's content: 3 after a BOM, else 0
	base   int    // offset of src in data (after BOM and front matter)
	src    []byte // what goldmark parsed
	target int
	path   string
	date   string

	headings []heading // the open heading path, outermost first
	heading  string    // headings joined by HeadingSep, shared by their chunks
	buf      []byte    // scratch for headingText
	cur      span      // the chunk being built; cur.start == 0 when none
	hasBody  bool      // cur holds more than heading lines
	// firstHeading is the text of the file's first "# title", "" before one.
	firstHeading string
	// turn says the open section is a logged chat turn (a log's "### 09:30
	// · session NAME"); by is whose words cur holds (Chunk.By).
	turn bool
	by   string
	out  []Chunk
}

type heading struct {
	level int
	text  string
}

// span is a 1-based inclusive line range.
type span struct{ start, end int }

// newChunker prepares a file for parsing: line starts, BOM, front matter.
func newChunker(data []byte) *chunker {
	c := &chunker{data: data, lines: lineStarts(data), target: DefaultTargetChars}
	if bytes.HasPrefix(data, bom) {
		c.first = len(bom)
	}
	c.base = c.first + frontMatterLen(data[c.first:])
	c.src = data[c.base:]
	return c
}

func (c *chunker) parse() ast.Node { return markdownParser().Parse(text.NewReader(c.src)) }

// walk turns the document's top-level blocks into chunks. goldmark's AST is
// flat at the top: headings are siblings of the blocks they head, so a
// section is everything from one heading to the next of any level.
func (c *chunker) walk(doc ast.Node) {
	blocks := c.blockSpans(doc, span{c.lineOf(c.base), len(c.lines)})
	for _, b := range blocks {
		if h, ok := b.node.(*ast.Heading); ok {
			c.flush()
			c.openSection(h)
			c.cur = b.span
			continue
		}
		if c.turn && c.by == "" {
			c.splitTurn(b.span)
		}
		c.addUnits(b.node, b.span)
	}
	c.flush()
}

// block is a node with the lines it owns in the file.
type block struct {
	node ast.Node
	span
}

// blockSpans gives each child of parent the lines from its first line to
// the line before the next child's, trailing blank lines dropped; the first
// child starts no later than the parent and the last ends with it, so
// container syntax (fence lines, "> " lines, list markers) is always inside
// some block. Children that start on a line already taken (a list item's
// first paragraph shares the marker's line) are folded into the previous one.
func (c *chunker) blockSpans(parent ast.Node, within span) []block {
	var out []block
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		start, ok := c.startLine(n)
		if !ok {
			continue // nothing in the source: its lines stay with its neighbours
		}
		if len(out) == 0 {
			start = c.skipBlank(min(start, within.start), start)
		} else if start <= out[len(out)-1].start {
			continue
		}
		if start < within.start || start > within.end {
			continue
		}
		out = append(out, block{node: n, span: span{start, start}})
	}
	for i := range out {
		end := within.end
		if i+1 < len(out) {
			end = out[i+1].start - 1
		}
		out[i].end = c.trimBlank(out[i].start, end)
	}
	return out
}

// startLine finds the line a block begins on. goldmark records the offset
// of the block's first character (after indentation and container markers)
// in Pos; nodes without one fall back to their first descendant that has one.
func (c *chunker) startLine(n ast.Node) (int, bool) {
	if p := n.Pos(); p >= 0 {
		return c.lineOf(c.base + p), true
	}
	for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
		if l, ok := c.startLine(ch); ok {
			return l, true
		}
	}
	return 0, false
}

// addUnits adds a block to the current section, splitting a list or quote
// that is bigger than the target between its children.
func (c *chunker) addUnits(n ast.Node, s span) {
	if c.size(s) > c.target && splittable(n) {
		parts := c.blockSpans(n, s)
		if len(parts) > 1 {
			for _, p := range parts {
				c.addUnits(p.node, p.span)
			}
			return
		}
	}
	c.addUnit(s, n.Kind() != ast.KindThematicBreak && !(s.start == s.end && c.blank(s.start)))
}

// splittable says whether a block may be cut between its children: lists,
// list items and quotes may; paragraphs, code and HTML are kept whole.
func splittable(n ast.Node) bool {
	switch n.Kind() {
	case ast.KindList, ast.KindListItem, ast.KindBlockquote:
		return n.ChildCount() > 1
	}
	return false
}

// addUnit appends one unbreakable run of lines to the current chunk, first
// closing the chunk when it already has body text and would outgrow the
// target. A heading always keeps at least its first unit with it.
func (c *chunker) addUnit(s span, body bool) {
	if c.cur.start != 0 && c.hasBody && c.size(span{c.cur.start, s.end}) > c.target {
		c.flush()
	}
	if c.cur.start == 0 {
		c.cur = s
	} else {
		c.cur.end = s.end
	}
	c.hasBody = c.hasBody || body
}

// splitTurn starts the assistant's part of a logged turn at a block that
// opens with the reply's mark (turnReply): the user's words before it are a
// chunk of their own. A block that holds the mark further down (a message
// written as code, say) cannot be cut: its chunk is counted the
// assistant's, the side that ranks lower.
func (c *chunker) splitTurn(s span) {
	for l := s.start; l <= s.end; l++ {
		if !turnReply(c.text(span{l, l})) {
			continue
		}
		if l == s.start && c.hasBody {
			c.flush()
		}
		c.by = ByAssistant
		return
	}
}

// openSection updates the heading path for a new heading.
func (c *chunker) openSection(h *ast.Heading) {
	for len(c.headings) > 0 && c.headings[len(c.headings)-1].level >= h.Level {
		c.headings = c.headings[:len(c.headings)-1]
	}
	t := c.headingText(h)
	// A daily log's "# YYYY-MM-DD" title only repeats the chunk's Date and
	// path; leaving it out keeps heading matches about what the entry says.
	if h.Level == 1 && c.date != "" && t == c.date {
		t = ""
	}
	c.headings = append(c.headings, heading{h.Level, t})
	c.heading = c.headingPath()
	if c.firstHeading == "" && h.Level == 1 {
		c.firstHeading = t
	}
	c.turn = c.date != "" && strings.HasPrefix(c.path, logsDir+"/") && isTurnHeading(t)
	c.by = ""
}

// headingText is the heading's source text with runs of blanks collapsed
// (a setext heading may span lines). Inline markup is kept as written.
func (c *chunker) headingText(h *ast.Heading) string {
	b := c.buf[:0]
	lines := h.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		space := i > 0 // a line break separates words too
		for _, ch := range c.src[seg.Start:seg.Stop] {
			if ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\f' || ch == '\v' {
				space = true
				continue
			}
			if space && len(b) > 0 {
				b = append(b, ' ')
			}
			space = false
			b = append(b, ch)
		}
	}
	c.buf = b
	return string(b)
}

// flush emits the current chunk if it holds any body text: a heading with
// nothing under it is left out (its words live on in its subsections'
// heading paths, and an empty "## Preferences" is not worth a search hit).
func (c *chunker) flush() {
	if c.cur.start != 0 && c.hasBody {
		c.out = append(c.out, Chunk{
			Path:      c.path,
			StartLine: c.cur.start,
			EndLine:   c.cur.end,
			Heading:   c.heading,
			Date:      c.date,
			Text:      c.text(c.cur),
			By:        c.by,
		})
	}
	c.cur = span{}
	c.hasBody = false
}

func (c *chunker) headingPath() string {
	var b strings.Builder
	for _, h := range c.headings {
		if h.text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(HeadingSep)
		}
		b.WriteString(h.text)
	}
	return b.String()
}

// lineOf maps a byte offset in data to its 1-based line.
func (c *chunker) lineOf(off int) int {
	lo, hi := 0, len(c.lines) // first line start > off, by binary search
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c.lines[m] <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return max(lo, 1)
}

// bounds returns the byte range of lines s.start..s.end without the final
// line end (nor its "\r"), and without a BOM on line 1.
func (c *chunker) bounds(s span) (int, int) {
	from := c.lines[s.start-1]
	if s.start == 1 {
		from = c.first
	}
	to := len(c.data)
	if s.end < len(c.lines) {
		to = c.lines[s.end] - 1 // the "\n"
	} else if to > 0 && c.data[to-1] == '\n' {
		to--
	}
	if to > from && c.data[to-1] == '\r' {
		to--
	}
	return from, max(from, to)
}

func (c *chunker) size(s span) int {
	from, to := c.bounds(s)
	return to - from
}

// trimBlank moves end up past blank lines, never above start.
func (c *chunker) trimBlank(start, end int) int {
	for end > start && c.blank(end) {
		end--
	}
	return end
}

// skipBlank moves start down past blank lines, never below limit.
func (c *chunker) skipBlank(start, limit int) int {
	for start < limit && c.blank(start) {
		start++
	}
	return start
}

// blank says whether a line holds nothing but blanks and quote markers:
// such lines separate blocks and are not worth starting or ending a chunk on.
func (c *chunker) blank(line int) bool {
	from, to := c.bounds(span{line, line})
	return len(bytes.TrimFunc(c.data[from:to], isBlankRune)) == 0
}

func isBlankRune(r rune) bool { return r == '>' || unicode.IsSpace(r) }

// text returns the lines of s as in the file, "\r\n" read as "\n".
func (c *chunker) text(s span) string {
	from, to := c.bounds(s)
	raw := c.data[from:to]
	if bytes.IndexByte(raw, '\r') < 0 {
		return string(raw)
	}
	var b strings.Builder
	b.Grow(len(raw))
	for len(raw) > 0 {
		line, rest, ok := cutLine(raw)
		if ok {
			line = line[:len(line)-1]
			line = bytes.TrimSuffix(line, []byte{'\r'})
		}
		b.Write(line)
		if ok {
			b.WriteByte('\n')
		}
		raw = rest
	}
	return b.String()
}
