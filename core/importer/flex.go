package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"agent/memory/printable"
)

// The exports are undocumented and drift from month to month, so a field is
// read by what it means, not by the type one export gave it: the fields the
// import needs (words, times, ids, who spoke) read every readable form, and
// every other field is either not declared at all or read loosely, so an
// odd type there never fails a conversation (docs/decisions-import.md).

// text is a field read as words: a string, or a number or true/false where
// words were expected (kept as written); null is empty. A list or an object
// is not words: the conversation it is in is not readable.
type text string

func (t *text) UnmarshalJSON(b []byte) error {
	switch b[0] {
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = text(s)
	case 'n':
		*t = ""
	case '[', '{':
		return &json.UnmarshalTypeError{Value: jsonKind(b), Type: reflect.TypeFor[text]()}
	default: // a number, true or false
		*t = text(b)
	}
	return nil
}

// loose is a field the import could use but does not need (a title, a
// tool's name): read as text when it is text or a number, empty otherwise.
type loose string

func (l *loose) UnmarshalJSON(b []byte) error {
	var t text
	if t.UnmarshalJSON(b) == nil {
		*l = loose(t)
	}
	return nil
}

// stamp is a time: seconds since 1970 as a number or a string of one (with
// a fraction or not; milliseconds when too large to be seconds), or a date
// and time in the RFC 3339 family, with or without zone (UTC then),
// fraction or "T". null and "" are no time.
type stamp struct{ time.Time }

// layouts are the written forms a stamp reads, tried in order.
var layouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999Z0700",
	"2006-01-02 15:04:05.999999999 -0700 MST",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	time.DateOnly,
}

func (s *stamp) UnmarshalJSON(b []byte) error {
	bad := func(what string) error {
		return &json.UnmarshalTypeError{Value: what, Type: reflect.TypeFor[stamp]()}
	}
	switch b[0] {
	case 'n':
		s.Time = time.Time{}
		return nil
	case '"':
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		v = strings.TrimSpace(v)
		if v == "" {
			s.Time = time.Time{}
			return nil
		}
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			t, ok := epoch(f)
			if !ok {
				return bad(quoteShort(v))
			}
			s.Time = t
			return nil
		}
		for _, l := range layouts {
			if t, err := time.Parse(l, v); err == nil {
				s.Time = t.UTC().Truncate(time.Second)
				return nil
			}
		}
		return bad(quoteShort(v))
	case '[', '{', 't', 'f':
		return bad(jsonKind(b))
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return bad(jsonKind(b))
	}
	t, ok := epoch(f)
	if !ok {
		return bad(string(b))
	}
	s.Time = t
	return nil
}

// looseStamp is a time the import can do without (when a conversation was
// last updated): no time when unreadable.
type looseStamp struct{ time.Time }

func (l *looseStamp) UnmarshalJSON(b []byte) error {
	var s stamp
	if s.UnmarshalJSON(b) == nil {
		l.Time = s.Time
	}
	return nil
}

// epoch reads seconds since 1970 with a fraction, or milliseconds: no
// export is dated after the year 5000 in seconds, so a larger number is
// milliseconds. A negative, infinite or absurd number is no time.
func epoch(sec float64) (time.Time, bool) {
	if sec > 1e11 {
		sec /= 1000
	}
	if math.IsNaN(sec) || sec < 0 || sec > 1e11 {
		return time.Time{}, false
	}
	whole, frac := math.Modf(sec)
	return time.Unix(int64(whole), int64(frac*1e9)).UTC().Truncate(time.Second), true
}

// jsonKind names a JSON value's kind in the user's words.
func jsonKind(b []byte) string {
	switch b[0] {
	case '"':
		return "text"
	case '[':
		return "a list"
	case '{':
		return "an object"
	case 't', 'f':
		return "true/false"
	case 'n':
		return "null"
	}
	return "a number"
}

func quoteShort(s string) string {
	return strconv.Quote(printable.Cut(s, 41))
}

// unreadable says why a conversation could not be read, in the user's
// terms: the field, what it held and what was expected — never a Go type.
func unreadable(err error) string {
	var loc *located
	if errors.As(err, &loc) {
		return loc.where + ": " + unreadable(loc.err)
	}
	var typ *json.UnmarshalTypeError
	if !errors.As(err, &typ) {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return "invalid JSON"
		}
		return err.Error()
	}
	value := typ.Value
	switch value { // encoding/json's own words for the kinds
	case "string":
		value = "text"
	case "array":
		value = "a list"
	case "object":
		value = "an object"
	case "bool":
		value = "true/false"
	case "number":
		value = "a number"
	default:
		if strings.HasPrefix(value, "number ") {
			value = "the number " + strings.TrimPrefix(value, "number ")
		}
	}
	field := typ.Field
	if field == "" {
		field = "the conversation"
	}
	return fmt.Sprintf("%s is %s, expected %s", field, value, expected(typ.Type))
}

// expected names what a field should hold.
func expected(t reflect.Type) string {
	switch t {
	case reflect.TypeFor[text]():
		return "text"
	case reflect.TypeFor[stamp]():
		return "a time (seconds since 1970, or a date like 2024-06-10T09:15:30Z)"
	}
	switch t.Kind() {
	case reflect.Slice:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.String:
		return "text"
	case reflect.Bool:
		return "true/false"
	case reflect.Float64, reflect.Int, reflect.Int64:
		return "a number"
	}
	return "something else"
}

// looseList is a list field the import can do without: a value that is not
// a list reads as an empty one.
type looseList []json.RawMessage

func (l *looseList) UnmarshalJSON(b []byte) error {
	var v []json.RawMessage
	if json.Unmarshal(b, &v) == nil {
		*l = v
	} else {
		*l = nil
	}
	return nil
}

// looseObject is an object field the import can do without: anything else
// reads as an empty one.
type looseObject map[string]json.RawMessage

func (o *looseObject) UnmarshalJSON(b []byte) error {
	var v map[string]json.RawMessage
	if json.Unmarshal(b, &v) == nil {
		*o = v
	} else {
		*o = nil
	}
	return nil
}

// str is one of o's fields as text ("" when absent or not text).
func (o looseObject) str(key string) string {
	var l loose
	if raw, ok := o[key]; ok {
		l.UnmarshalJSON(raw)
	}
	return string(l)
}

// num is one of o's fields as a number (0 when absent or not a number).
func (o looseObject) num(key string) float64 {
	var f float64
	if raw, ok := o[key]; ok && json.Unmarshal(raw, &f) != nil {
		if s := o.str(key); s != "" {
			f, _ = strconv.ParseFloat(s, 64)
		}
	}
	return f
}

// flag is one of o's fields as true/false (false unless true).
func (o looseObject) flag(key string) bool {
	var b bool
	if raw, ok := o[key]; ok {
		json.Unmarshal(raw, &b)
	}
	return b
}
