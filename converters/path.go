package converters

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// path is a location in an object: object keys (string) and list indices
// (int), from the root.
type path []any

// fieldPath parses a rule's dotted field path ("spec.size.height"). Rule
// paths name object fields only.
func fieldPath(s string) path {
	parts := strings.Split(s, ".")
	p := make(path, len(parts))
	for i, k := range parts {
		p[i] = k
	}
	return p
}

// loc is a path with its gjson and sjson forms rendered once, and its
// parent (nil at the top level).
type loc struct {
	p        path
	get, set string
	up       *loc
}

func newLoc(p path) *loc {
	if len(p) == 0 {
		return nil
	}
	return &loc{p: p, get: p.get(), set: p.set(), up: newLoc(p[:len(p)-1])}
}

// get is the gjson path of p.
func (p path) get() string { return p.render(false) }

// set is the sjson path of p: an object key made of digits is prefixed with
// ':' so that sjson does not take it for a list index.
func (p path) set() string { return p.render(true) }

func (p path) render(forSet bool) string {
	var b strings.Builder
	for i, s := range p {
		if i > 0 {
			b.WriteByte('.')
		}
		switch s := s.(type) {
		case int:
			b.WriteString(strconv.Itoa(s))
		case string:
			switch {
			case forSet && isDigits(s):
				b.WriteByte(':') // a key, not an index
			case forSet && strings.HasPrefix(s, ":"):
				b.WriteByte('\\') // not sjson's "force a key" prefix
			}
			b.WriteString(gjson.Escape(s))
		}
	}
	return b.String()
}

// String renders p for people: "spec.items[2].name".
func (p path) String() string {
	var b strings.Builder
	for i, s := range p {
		switch s := s.(type) {
		case int:
			b.WriteString("[" + strconv.Itoa(s) + "]")
		case string:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s)
		}
	}
	return b.String()
}

func (p path) child(s any) path {
	q := make(path, len(p), len(p)+1)
	copy(q, p)
	return append(q, s)
}

// hasPrefix reports whether q is p or an ancestor of p.
func (p path) hasPrefix(q path) bool {
	if len(q) > len(p) {
		return false
	}
	for i := range q {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// pathFromJSON reads a path stored in the bookkeeping annotation: a list of
// strings (keys) and integers (indices).
func pathFromJSON(r gjson.Result) (path, bool) {
	if !r.IsArray() {
		return nil, false
	}
	var p path
	ok := true
	r.ForEach(func(_, v gjson.Result) bool {
		switch v.Type {
		case gjson.String:
			p = append(p, v.Str)
		case gjson.Number:
			p = append(p, int(v.Int()))
		default:
			ok = false
		}
		return ok
	})
	return p, ok
}
