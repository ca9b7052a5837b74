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
	// mapKeys are the x-kubernetes-list-map-keys of a list of type map:
	// its elements are known by them (identity.go).
	mapKeys []string
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
	var listType string
	if ok, _ := structural.Extension(s, "x-kubernetes-list-type", &listType); ok && listType == "map" {
		_, _ = structural.Extension(s, "x-kubernetes-list-map-keys", &sh.mapKeys)
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
	found, _ := sh.find(p)
	return found
}

// find follows a rule's field path, [*] going into a list's elements. When
// the schema has no such field it returns nil and the part of p that is
// missing or is not a list.
func (sh *shape) find(p path) (*shape, string) {
	cur := sh
	for i, s := range p {
		if _, ok := s.(every); ok {
			if cur.items == nil {
				return nil, p[:i].String() + " is not a list"
			}
			cur = cur.items
			continue
		}
		k, _ := s.(string)
		if cur.open && cur.props == nil {
			return nil, "no field " + p[:i+1].String()
		}
		if cur = cur.child(k); cur == nil {
			return nil, "no field " + p[:i+1].String()
		}
	}
	return cur, ""
}

// at is the shape at a path of an object (keys, indices, element
// references), nil when sh has no place for it.
func (sh *shape) at(p path) *shape {
	cur := sh
	for _, s := range p {
		if cur == nil {
			return nil
		}
		if k, ok := s.(string); ok {
			cur = cur.child(k)
		} else {
			cur = cur.items
		}
	}
	return cur
}
