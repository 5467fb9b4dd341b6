// Package sqlitedb is the one place that knows the SQLite driver
// (mattn/go-sqlite3): how a database file is named, how a connection gets its
// pragmas, and what its errors mean. Everything else speaks database/sql.
package sqlitedb

import (
	"path/filepath"
	"strings"
)

// File returns the URI naming the database file at path, with query (for
// example "mode=rw&_busy_timeout=10000") appended when it is not empty.
// A bare path inside a "file:" URI is not a path: SQLite reads '?' as the
// start of the query, '#' as the fragment and "%HH" as an escape, so a
// workspace named "ws#x" would put its database in "ws". Relative paths are made absolute first, so a path starting with "//"
// (read as an authority) or with a drive-like "x:" cannot change meaning.
func File(path, query string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	var b strings.Builder
	b.WriteString("file:")
	for i := 0; i < len(path); i++ {
		c := path[i]
		if unreserved(c) {
			b.WriteByte(c)
			continue
		}
		const hex = "0123456789ABCDEF"
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	if query != "" {
		b.WriteByte('?')
		b.WriteString(query)
	}
	return b.String()
}

// unreserved reports whether c may stand for itself in a URI path: SQLite
// decodes every %HH, so escaping more than needed is always safe; these are
// left readable for error messages.
func unreserved(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("/-._~+,=@:", c) >= 0
}

// Func is a pure (deterministic) SQL function every connection of OpenWith
// gets: Fn is a Go func of plain types (string, int64, float64, []byte).
type Func struct {
	Name string
	Fn   any
}
