package converters

import (
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/specd-io/specd/schemas"
)

// ruleArgs is one rule being compiled: its kind, pointer and arguments.
type ruleArgs struct {
	c    *compiler
	kind string
	at   string
	args map[string]any
}

func (a *ruleArgs) compile() []*step {
	switch a.kind {
	case kindNest, kindFlatten:
		return a.nestOrFlatten()
	case kindConstant:
		return a.constant()
	}
	from, fs := a.field("from", a.c.spoke, true)
	to, ts := a.field("to", a.c.hub, a.kind != kindEnum)
	if a.kind == kindEnum && to == nil && from != nil {
		to, ts = from, a.c.hub.lookup(from)
		if ts == nil {
			a.c.addf(a.at+"/from", "hub has no field %s (give to:)", from)
		}
	}
	if fs == nil || ts == nil || !a.sameLists(from, to) {
		return nil
	}
	s := &step{kind: a.kind, key: stepKey(a.kind, from, to), from: from, to: to}
	switch a.kind {
	case kindRename:
		s.fwd, s.back = identity{}, identity{}
		a.sameType(fs, ts, "to")
	case kindEnum:
		s.fwd, s.back = a.enum(fs, ts)
	case kindToList, kindFromList:
		list, scalar, listAt := ts, fs, "to"
		s.fwd, s.back = wrap{}, first{}
		if a.kind == kindFromList {
			list, scalar, listAt = fs, ts, "from"
			s.fwd, s.back = first{}, wrap{}
		}
		if a.isType(list, "array", listAt) && list.items != nil {
			a.sameType(scalar, list.items, listAt)
		}
	case kindSplit, kindJoin:
		sep := a.str("separator", true)
		s.fwd, s.back = split(sep), join(sep)
		str, list, strAt, listAt := fs, ts, "from", "to"
		if a.kind == kindJoin {
			s.fwd, s.back = join(sep), split(sep)
			str, list, strAt, listAt = ts, fs, "to", "from"
		}
		a.isType(str, "string", strAt)
		if a.isType(list, "array", listAt) && list.items != nil {
			a.isType(list.items, "string", listAt)
		}
	}
	return []*step{s}
}

// field reads a path argument and looks it up in sh.
func (a *ruleArgs) field(name string, sh *shape, required bool) (path, *shape) {
	s := a.str(name, required)
	if s == "" {
		return nil, nil
	}
	p, bad := fieldPath(s)
	if bad != "" {
		a.c.addf(a.at+"/"+name, "%q: %s", s, bad)
		return nil, nil
	}
	if len(p) == 1 && isMetaField(s) || p[0] == "metadata" {
		a.c.addf(a.at+"/"+name, "%s: rules cannot touch apiVersion, kind or metadata", s)
		return nil, nil
	}
	if _, ok := p[len(p)-1].(every); ok && !a.elementItself() {
		a.c.addf(a.at+"/"+name, "%s names the elements of a list, not a field in them: %s takes a field (move a whole list by its own path)", s, a.kind)
		return nil, nil
	}
	found, missing := sh.find(p)
	if found == nil {
		side := "hub (storage version)"
		if sh == a.c.spoke {
			side = "spoke (this version)"
		}
		if strings.HasSuffix(missing, "is not a list") {
			a.c.addf(a.at+"/"+name, "%s: in the %s schema, %s: [*] goes into the elements of a list only", s, side, missing)
		} else {
			a.c.addf(a.at+"/"+name, "the %s schema has no field %s", side, s)
		}
		return nil, nil
	}
	return p, found
}

// elementItself: the rule kinds whose path may be the elements of a list
// themselves (spec.modes[*]): enum maps each element; nest and flatten
// move fields into or out of each element.
func (a *ruleArgs) elementItself() bool {
	return a.kind == kindEnum || a.kind == kindNest || a.kind == kindFlatten
}

// sameLists checks that from and to go into as many lists: a rule maps a
// field of each element to a field of the same element.
func (a *ruleArgs) sameLists(from, to path) bool {
	if from.stars() != to.stars() {
		a.c.addf(a.at+"/to", "%s and %s go into %d and %d lists: a rule maps a field of each element to a field of the same element",
			from, to, from.stars(), to.stars())
		return false
	}
	_, fin, _ := from.lastList()
	_, tin, _ := to.lastList()
	if a.kind == kindEnum && (len(fin) == 0) != (len(tin) == 0) {
		a.c.addf(a.at+"/to", "%s and %s: either both or neither name the elements themselves", from, to)
		return false
	}
	return true
}

func (a *ruleArgs) str(name string, required bool) string {
	v, ok := a.args[name]
	if !ok {
		if required {
			a.c.addf(a.at, "%s: %s is required", a.kind, name)
		}
		return ""
	}
	s, ok := v.(string)
	if !ok || s == "" {
		a.c.addf(a.at+"/"+name, "must be a non-empty string")
		return ""
	}
	return s
}

func (a *ruleArgs) isType(sh *shape, typ, at string) bool {
	if sh.typ != typ {
		a.c.addf(a.at+"/"+at, "%s needs a field of type %s, not %s", a.kind, typ, typeName(sh))
		return false
	}
	return true
}

func (a *ruleArgs) sameType(x, y *shape, at string) {
	if x.typ != y.typ {
		a.c.addf(a.at+"/"+at, "types differ: spoke %s, hub %s", typeName(x), typeName(y))
	}
}

func typeName(sh *shape) string {
	if sh.typ == "" {
		return "any"
	}
	return sh.typ
}

// enum reads values: a one-to-one map of spoke string to hub string.
func (a *ruleArgs) enum(fs, ts *shape) (transform, transform) {
	a.isType(fs, "string", "from")
	a.isType(ts, "string", "to")
	vals, ok := a.args["values"].(map[string]any)
	if !ok || len(vals) == 0 {
		a.c.addf(a.at+"/values", "values: a map of spoke value to hub value is required")
		return enumMap{}, enumMap{}
	}
	fwd, back := enumMap{}, enumMap{}
	// In key order, so that a map that is not one to one is reported the
	// same way every time.
	for _, k := range slices.Sorted(maps.Keys(vals)) {
		s, ok := vals[k].(string)
		if !ok {
			a.c.addf(a.at+"/values/"+schemas.EscapeToken(k), "must be a string")
			continue
		}
		if prev, dup := back[s]; dup {
			a.c.addf(a.at+"/values/"+schemas.EscapeToken(k), "hub value %q is also the image of %q: the map must be one to one", s, prev)
			continue
		}
		fwd[k], back[s] = s, k
	}
	return fwd, back
}

// nestOrFlatten expands to one rename per field: nest moves spoke
// from.f to hub to.f; flatten moves spoke from.f to hub to.f too, the
// difference being which side holds the object (fields default to its
// properties).
func (a *ruleArgs) nestOrFlatten() []*step {
	from, fs := a.field("from", a.c.spoke, true)
	to, ts := a.field("to", a.c.hub, true)
	if fs == nil || ts == nil || !a.sameLists(from, to) {
		return nil
	}
	obj := ts
	if a.kind == kindFlatten {
		obj = fs
	}
	var names []string
	if raw, given := a.args["fields"]; given {
		list, ok := raw.([]any)
		for _, x := range list {
			s, isStr := x.(string)
			ok = ok && isStr && s != "" && !strings.Contains(s, ".")
			names = append(names, s)
		}
		if !ok || len(list) == 0 {
			a.c.addf(a.at+"/fields", "fields: a list of field names is required")
			return nil
		}
	} else {
		for k := range obj.props {
			names = append(names, k)
		}
		sortStrings(names)
	}
	var steps []*step
	for i, n := range names {
		f, t := from.child(n), to.child(n)
		fsh, tsh := a.c.spoke.lookup(f), a.c.hub.lookup(t)
		switch {
		case fsh == nil:
			a.c.addf(a.at+"/fields/"+itoa(i), "the spoke (this version) schema has no field %s", f)
		case tsh == nil:
			a.c.addf(a.at+"/fields/"+itoa(i), "the hub (storage version) schema has no field %s", t)
		default:
			a.sameType(fsh, tsh, "fields/"+itoa(i))
			steps = append(steps, &step{kind: a.kind, key: stepKey(a.kind, f, t), from: f, to: t, fwd: identity{}, back: identity{}})
		}
	}
	return steps
}

// constant: a field that only one side has (from: the spoke's, to: the
// hub's), with the value the other side implies.
func (a *ruleArgs) constant() []*step {
	_, hasFrom := a.args["from"]
	_, hasTo := a.args["to"]
	if hasFrom == hasTo {
		a.c.addf(a.at, "constant: give exactly one of from (a spoke-only field) or to (a hub-only field)")
		return nil
	}
	val, ok := a.args["value"]
	if !ok {
		a.c.addf(a.at, "constant: value is required")
		return nil
	}
	name, own, other, otherName := "to", a.c.hub, a.c.spoke, "spoke (this version)"
	if hasFrom {
		name, own, other, otherName = "from", a.c.spoke, a.c.hub, "hub (storage version)"
	}
	p, sh := a.field(name, own, true)
	if sh == nil {
		return nil
	}
	if other.holds(p) {
		a.c.addf(a.at+"/"+name, "the %s schema has a place for %s: use rename", otherName, p)
		return nil
	}
	if !fits(sh, val) {
		a.c.addf(a.at+"/value", "value %s does not fit the %s field %s", constantJSON(val), typeName(sh), p)
		return nil
	}
	s := &step{kind: kindConstant, constant: constantJSON(val)}
	if hasFrom {
		s.from = p
	} else {
		s.to = p
	}
	s.key = stepKey(kindConstant, s.from, s.to)
	return []*step{s}
}

// fits reports whether a decoded JSON value has the type of sh.
func fits(sh *shape, v any) bool {
	switch v.(type) {
	case string:
		return sh.typ == "string" || sh.typ == "int-or-string" || sh.typ == ""
	case float64, int, int64:
		return sh.typ == "number" || sh.typ == "integer" || sh.typ == "int-or-string" || sh.typ == ""
	case bool:
		return sh.typ == "boolean" || sh.typ == ""
	case map[string]any:
		return sh.typ == "object" || sh.typ == ""
	case []any:
		return sh.typ == "array" || sh.typ == ""
	}
	return false
}

// holds reports whether an object of sh can carry a value at p: a declared
// field, or a place below an open object.
func (sh *shape) holds(p path) bool {
	cur := sh
	for _, s := range p {
		if cur.open {
			return true
		}
		if k, ok := s.(string); ok {
			cur = cur.child(k)
		} else {
			cur = cur.items
		}
		if cur == nil {
			return false
		}
	}
	return true
}

func shapesEqual(a, b *shape) bool { return reflect.DeepEqual(a, b) }
