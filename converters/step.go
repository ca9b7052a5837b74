package converters

import (
	"encoding/json"

	"github.com/tidwall/gjson"
)

// step is one compiled rule: it moves the value at from (a path of the
// spoke) to to (a path of the hub), mapped by fwd, and back by back. A
// constant rule has only one of the two paths.
type step struct {
	kind      string
	key       string // names the rule in the bookkeeping
	from, to  path
	fromL     *loc // from and to, rendered
	toL       *loc
	fromR     *loc // from and to below Rules.top, when it is set
	toR       *loc
	fwd, back transform
	constant  string // the constant's JSON, for the constant kind
	// each is set when the paths go into list elements ([*]): the step
	// then runs its inner step on every element (elem.go).
	each *each
	at   string // the JSON pointer of the rule, for problems found late
}

// books is the bookkeeping of one conversion: what the target version
// kept aside (in) and what the source version cannot hold (out), and the
// same for the rules that work inside list elements, by element.
type books struct {
	in, out *entry
	// elemIn: what the target version kept of each element, by rule key
	// and element (elemKey).
	elemIn map[string]map[string]*entry
	// elemOut: what the source cannot hold, of each element.
	elemOut []keptElem
}

// keptElem is what one rule kept aside of one element: the element is at
// idx (one index per [*]) in the list at list.
type keptElem struct {
	key  string
	list path // with [*]
	idx  []int
	e    *entry
}

// run applies s in the direction toHub, reading what the target version
// kept aside from b.in and keeping aside into b.out what it cannot hold.
// With rel, obj is the object's Rules.top field and the paths are below it.
func (s *step) run(obj []byte, toHub, rel bool, b *books) ([]byte, error) {
	if s.each != nil {
		return runEach(obj, []*step{s}, toHub, rel, b)
	}
	in, out := b.in, b.out
	from, to := s.fromL, s.toL
	if rel {
		from, to = s.fromR, s.toR
	}
	if s.kind == kindConstant {
		return s.runConstant(obj, toHub, from, to, in, out)
	}
	src, dst, t, u := from, to, s.fwd, s.back
	if !toHub {
		src, dst, t, u = to, from, s.back, s.fwd
	}
	v := valueOf(gjson.GetBytes(obj, src.get))
	w := s.map1(v, t, u, in, out)
	var err error
	if v.ok {
		if obj, err = deleteEmptied(obj, src); err != nil {
			return nil, err
		}
	}
	if w.ok {
		return setAt(obj, dst, w.raw)
	}
	return obj, nil
}

// map1 maps v with t, checking with u that the way back gives v again;
// when it would not, v is kept aside as a raw value.
func (s *step) map1(v value, t, u transform, in, out *entry) value {
	if rv, ok := in.Raw[s.key]; ok && v.ok && jsonEqual(v.raw, string(rv.As)) {
		return present(string(rv.Was))
	}
	var rest value
	if raw, ok := in.Rest[s.key]; ok {
		rest = present(string(raw))
	}
	w, restOut := t.apply(v, rest)
	if restOut.ok {
		if out.Rest == nil {
			out.Rest = map[string]json.RawMessage{}
		}
		out.Rest[s.key] = json.RawMessage(restOut.raw)
	}
	if !v.ok || !w.ok {
		return w
	}
	if back, _ := u.apply(w, restOut); !back.ok || !jsonEqual(back.raw, v.raw) {
		if out.Raw == nil {
			out.Raw = map[string]rawValue{}
		}
		out.Raw[s.key] = rawValue{Was: json.RawMessage(v.raw), As: json.RawMessage(w.raw)}
	}
	return w
}

// runConstant: the rule's one path is a field only its side has. Going to
// the other side, the field is dropped when it holds the constant, noted
// when absent from an existing parent, and otherwise left for keepAside.
// Coming back, the constant is set in an existing parent unless the field
// was noted absent or holds a value kept aside (restored before the
// steps). The
// parent is never made nor removed, so {} and a missing parent both
// survive.
func (s *step) runConstant(obj []byte, toHub bool, from, to *loc, in, out *entry) ([]byte, error) {
	l, leaving := to, !toHub // the hub's field leaves when going to the spoke
	if l == nil {
		l, leaving = from, toHub
	}
	parent := l.up == nil || gjson.GetBytes(obj, l.up.get).IsObject()
	if !leaving {
		// A value there is one kept aside, already put back.
		if in.absent(s.key) || !parent || gjson.GetBytes(obj, l.get).Exists() {
			return obj, nil
		}
		return setAt(obj, l, s.constant)
	}
	r := gjson.GetBytes(obj, l.get)
	switch {
	case !r.Exists() && parent:
		out.Absent = append(out.Absent, s.key)
	case r.Exists() && jsonEqual(r.Raw, s.constant):
		return deleteAt(obj, l)
	}
	return obj, nil
}

// deleteEmptied deletes l, or the highest ancestor (below the root) that
// holds nothing else: a move recreates them on the way back.
func deleteEmptied(obj []byte, l *loc) ([]byte, error) {
	for l.up != nil && onlyOneKey(gjson.GetBytes(obj, l.up.get)) {
		l = l.up
	}
	return deleteAt(obj, l)
}

func onlyOneKey(r gjson.Result) bool {
	if !r.IsObject() {
		return false
	}
	n := 0
	r.ForEach(func(_, _ gjson.Result) bool { n++; return n < 2 })
	return n == 1
}
