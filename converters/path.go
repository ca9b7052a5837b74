package converters

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// path is a location in an object: object keys (string) and list indices
// (int), from the root. A rule's path may also hold every (each element of
// a list); a path kept in the bookkeeping may hold elemRef (an element
// known by its identity, identity.go).
type path []any

// every is the [*] of a rule path: each element of the list.
type every struct{}

// fieldPath parses a rule's dotted field path ("spec.size.height"): field
// names, each followed by [*] when it is a list whose elements the path
// goes into ("spec.ports[*].name"). It returns "" and the path, or what is
// wrong with the syntax.
func fieldPath(s string) (path, string) {
	var p path
	for _, part := range strings.Split(s, ".") {
		name, stars := part, 0
		for strings.HasSuffix(name, "[*]") {
			name, stars = strings.TrimSuffix(name, "[*]"), stars+1
		}
		switch {
		case name == "":
			return nil, "empty field name in path"
		case strings.ContainsAny(name, "[]"):
			return nil, fmt.Sprintf("%q: only [*] (every element) may follow a field name", part)
		case stars > 1:
			return nil, fmt.Sprintf("%q: a list of lists cannot be named", part)
		}
		p = append(p, name)
		if stars == 1 {
			p = append(p, every{})
		}
	}
	return p, ""
}

// stars counts the [*] of p.
func (p path) stars() int {
	n := 0
	for _, s := range p {
		if _, ok := s.(every); ok {
			n++
		}
	}
	return n
}

// lastList splits a rule path at its last [*]: the list (a path that may
// hold [*] itself) and the path inside its elements. ok is false when p
// has no [*].
func (p path) lastList() (list, inner path, ok bool) {
	for i := len(p) - 1; i >= 0; i-- {
		if _, is := p[i].(every); is {
			return p[:i], p[i+1:], true
		}
	}
	return nil, p, false
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

// String renders p for people: "spec.items[2].name", "spec.ports[*].name".
func (p path) String() string {
	var b strings.Builder
	for i, s := range p {
		switch s := s.(type) {
		case every:
			b.WriteString("[*]")
		case elemRef:
			b.WriteString("[" + strconv.Itoa(s.i) + "]")
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

func (p path) equal(q path) bool { return len(p) == len(q) && p.hasPrefix(q) }

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
