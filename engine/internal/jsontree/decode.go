package jsontree

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// maxDepth bounds the nesting DecodeObject handles itself; deeper
// documents go to the caller's decoder, which has its own limit.
const maxDepth = 1000

// DecodeObject decodes a JSON object into the tree sigs.k8s.io/json
// decodes with preserved integers: map[string]any, []any, string, bool,
// int64 (an integer that fits), float64 and nil. It handles only what it
// decodes exactly as that decoder does: ok is false for a document that
// is not one well-formed object, has a repeated key, or holds invalid
// UTF-8, so that the caller decodes it with sigs.k8s.io/json and gets
// its errors, its duplicate-field reports and its replacements.
func DecodeObject(data []byte) (obj map[string]any, ok bool) {
	d := decoder{data: data}
	d.space()
	if d.peek() != '{' {
		return nil, false
	}
	v, ok := d.object(0)
	if !ok {
		return nil, false
	}
	d.space()
	if d.pos != len(d.data) {
		return nil, false
	}
	return v, true
}

type decoder struct {
	data []byte
	pos  int
}

func (d *decoder) peek() byte {
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

func (d *decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, bool) {
	d.space()
	switch c := d.peek(); {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		return d.string()
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	default:
		return d.literal()
	}
}

func (d *decoder) object(depth int) (map[string]any, bool) {
	if depth > maxDepth {
		return nil, false
	}
	d.pos++ // {
	m := map[string]any{}
	d.space()
	if d.peek() == '}' {
		d.pos++
		return m, true
	}
	for {
		d.space()
		if d.peek() != '"' {
			return nil, false
		}
		key, ok := d.string()
		if !ok {
			return nil, false
		}
		if _, dup := m[key]; dup {
			return nil, false
		}
		d.space()
		if d.peek() != ':' {
			return nil, false
		}
		d.pos++
		if m[key], ok = d.value(depth); !ok {
			return nil, false
		}
		if more, ok := d.next('}'); !ok || !more {
			return m, ok
		}
	}
}

// next reads what follows a member or an item: a ',' (more) or the
// closing byte; anything else is not ok.
func (d *decoder) next(closing byte) (more, ok bool) {
	d.space()
	switch d.peek() {
	case ',':
		d.pos++
		return true, true
	case closing:
		d.pos++
		return false, true
	default:
		return false, false
	}
}

func (d *decoder) array(depth int) ([]any, bool) {
	if depth > maxDepth {
		return nil, false
	}
	d.pos++ // [
	items := []any{}
	d.space()
	if d.peek() == ']' {
		d.pos++
		return items, true
	}
	for {
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		items = append(items, v)
		if more, ok := d.next(']'); !ok || !more {
			return items, ok
		}
	}
}

// string reads a string. One with escapes goes through encoding/json,
// whose unquoting (surrogates, replacements) sigs.k8s.io/json shares.
func (d *decoder) string() (string, bool) {
	start := d.pos
	d.pos++ // "
	escaped := false
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			raw := d.data[start:d.pos]
			if escaped {
				var s string
				return s, json.Unmarshal(raw, &s) == nil
			}
			body := raw[1 : len(raw)-1]
			return string(body), utf8.Valid(body)
		case c == '\\':
			escaped = true
			d.pos += 2
		case c < 0x20:
			return "", false
		default:
			d.pos++
		}
	}
	return "", false
}

// number reads a number as sigs.k8s.io/json does with preserved
// integers: int64 when the text parses as one, else float64.
func (d *decoder) number() (any, bool) {
	start := d.pos
	if d.peek() == '-' {
		d.pos++
	}
	switch c := d.peek(); {
	case c == '0':
		d.pos++ // a leading zero stands alone
	case !d.digits():
		return nil, false
	}
	integer := true
	if d.peek() == '.' {
		integer = false
		d.pos++
		if !d.digits() {
			return nil, false
		}
	}
	if c := d.peek(); c == 'e' || c == 'E' {
		integer = false
		d.pos++
		if c := d.peek(); c == '+' || c == '-' {
			d.pos++
		}
		if !d.digits() {
			return nil, false
		}
	}
	text := string(d.data[start:d.pos])
	if integer {
		if i, err := strconv.ParseInt(text, 10, 64); err == nil {
			return i, true
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	return f, err == nil
}

// digits reads one or more decimal digits.
func (d *decoder) digits() bool {
	start := d.pos
	for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
		d.pos++
	}
	return d.pos > start
}

// literals are JSON's true, false and null, with their values.
var literals = []struct {
	text string
	v    any
}{{"true", true}, {"false", false}, {"null", nil}}

func (d *decoder) literal() (any, bool) {
	for _, l := range literals {
		if bytes.HasPrefix(d.data[d.pos:], []byte(l.text)) {
			d.pos += len(l.text)
			return l.v, true
		}
	}
	return nil, false
}
