package converters

import (
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/specd-io/specd/schemas/structural"
)

// shape is what conversion needs of a version's schema: which fields an
// object may hold, to keep aside those another version's object carries and
// this one cannot, and the types rules are checked against.
type shape struct {
	typ        string // "object", "array", "string", ... ("" when unsaid)
	props      map[string]*shape
	items      *shape
	additional *shape
	open       bool // any key is kept: preserve-unknown-fields or a free map
	embedded   bool // apiVersion, kind and metadata are implied
}

// newShape builds the shape of a kin-openapi schema whose $refs are
// resolved. Recursion (which a structural schema cannot have) ends open.
func newShape(s *openapi3.Schema) *shape {
	return buildShape(s, map[*openapi3.Schema]bool{})
}

func buildShape(s *openapi3.Schema, visiting map[*openapi3.Schema]bool) *shape {
	sh := &shape{}
	if s == nil || visiting[s] {
		sh.open = true
		return sh
	}
	visiting[s] = true
	defer delete(visiting, s)
	if t := s.Type.Slice(); len(t) == 1 {
		sh.typ = t[0]
	}
	var b bool
	if ok, _ := structural.Extension(s, "x-kubernetes-preserve-unknown-fields", &b); ok && b {
		sh.open = true
	}
	if ok, _ := structural.Extension(s, "x-kubernetes-embedded-resource", &b); ok && b {
		sh.embedded = true
	}
	if ok, _ := structural.Extension(s, "x-kubernetes-int-or-string", &b); ok && b {
		sh.typ = "int-or-string"
	}
	if len(s.Properties) > 0 {
		sh.props = make(map[string]*shape, len(s.Properties))
		for k, ref := range s.Properties {
			if ref != nil {
				sh.props[k] = buildShape(ref.Value, visiting)
			}
		}
	}
	if s.Items != nil {
		sh.items = buildShape(s.Items.Value, visiting)
	}
	switch ap := s.AdditionalProperties; {
	case ap.Schema != nil:
		sh.additional = buildShape(ap.Schema.Value, visiting)
	case ap.Has != nil && *ap.Has:
		sh.open = true
	}
	if sh.typ == "" && sh.props == nil && sh.items == nil && sh.additional == nil {
		sh.open = true // no structure said: nothing to keep aside below it
	}
	return sh
}

// child is the shape of key k of an object, nil when k has no place.
func (sh *shape) child(k string) *shape {
	if p, ok := sh.props[k]; ok {
		return p
	}
	return sh.additional
}

// lookup follows a rule's field path; nil when the schema has no such field.
func (sh *shape) lookup(p path) *shape {
	cur := sh
	for _, s := range p {
		k, _ := s.(string)
		if cur == nil || cur.open && cur.props == nil {
			return nil
		}
		cur = cur.child(k)
	}
	return cur
}
