package check

import (
	"fmt"
	"math"

	"github.com/getkin/kin-openapi/openapi3"
)

// object generates an object: every required field, optional fields by
// chance (less often deeper down), a few additionalProperties keys, and
// at the root or in embedded resources no apiVersion, kind or metadata of
// the schema's (the caller or embedded() sets valid ones).
func (g *generator) object(s *openapi3.Schema, depth int, root bool) map[string]any {
	obj := map[string]any{}
	if s == nil {
		return obj
	}
	embedded := boolExt(s, "x-kubernetes-embedded-resource")
	required, forbidden := g.constraints(s)
	p := g.optional * math.Pow(0.75, float64(depth))
	if depth >= maxDepth {
		p = 0
	}
	maxProps := -1
	if s.MaxProps != nil {
		maxProps = int(*s.MaxProps)
	}
	for _, name := range sortedProps(s) {
		if (root || embedded) && (name == "apiVersion" || name == "kind" || name == "metadata") {
			continue
		}
		if forbidden[name] || (maxProps >= 0 && len(obj) >= maxProps && !required[name]) {
			continue
		}
		if required[name] || g.chance(p) {
			obj[name] = g.value(propSchema(s.Properties[name]), depth+1)
		}
	}
	minProps := int(s.MinProps)
	g.fillOptional(s, obj, forbidden, minProps, maxProps, root || embedded, depth)
	if add := s.AdditionalProperties.Schema; add != nil {
		n := g.r.IntN(3)
		if depth >= maxDepth || g.optional == 0 {
			n = 0
		}
		for i := 0; (i < n || len(obj) < minProps) && (maxProps < 0 || len(obj) < maxProps) && i < 50; i++ {
			obj[fmt.Sprintf("key-%d", i)] = g.value(add.Value, depth+1)
		}
	}
	if boolExt(s, "x-kubernetes-preserve-unknown-fields") && len(s.Properties) == 0 && s.AdditionalProperties.Schema == nil {
		for i := 0; (i < g.r.IntN(3) || len(obj) < minProps) && (maxProps < 0 || len(obj) < maxProps) && i < 50; i++ {
			obj[fmt.Sprintf("unknown%d", i)] = g.unknown(depth)
		}
	}
	if embedded {
		obj["apiVersion"] = "example.com/v1"
		obj["kind"] = "Example"
		obj["metadata"] = map[string]any{"name": "embedded"}
	}
	return obj
}

// fillOptional adds optional fields until obj has minProps.
func (g *generator) fillOptional(s *openapi3.Schema, obj map[string]any, forbidden map[string]bool, minProps, maxProps int, skipMeta bool, depth int) {
	for _, name := range sortedProps(s) {
		if len(obj) >= minProps || (maxProps >= 0 && len(obj) >= maxProps) {
			return
		}
		if _, ok := obj[name]; ok || forbidden[name] || (skipMeta && (name == "apiVersion" || name == "kind" || name == "metadata")) {
			continue
		}
		obj[name] = g.value(propSchema(s.Properties[name]), depth+1)
	}
}

// unknown is a value for a field no schema describes.
func (g *generator) unknown(depth int) any {
	switch g.r.IntN(4) {
	case 0:
		return int64(g.r.IntN(1000))
	case 1:
		return g.r.IntN(2) == 0
	case 2:
		if depth < 4 {
			return map[string]any{"nested": g.word(1, 8)}
		}
	}
	return g.word(1, 12)
}

// constraints gathers the required fields of s and of its allOf, picks one
// branch of anyOf and oneOf (merging its required fields), and for oneOf
// and not forbids the fields that would make another branch match.
func (g *generator) constraints(s *openapi3.Schema) (required, forbidden map[string]bool) {
	required, forbidden = map[string]bool{}, map[string]bool{}
	add := func(names []string) {
		for _, n := range names {
			required[n] = true
		}
	}
	add(s.Required)
	for _, b := range s.AllOf {
		if b.Value != nil {
			add(b.Value.Required)
		}
	}
	if i, ok := g.pick(s.AnyOf); ok {
		add(s.AnyOf[i].Value.Required)
	}
	if i, ok := g.pick(s.OneOf); ok {
		add(s.OneOf[i].Value.Required)
		for j, b := range s.OneOf {
			if j != i && b.Value != nil {
				forbidOthers(b.Value, required, forbidden)
			}
		}
	}
	if s.Not != nil && s.Not.Value != nil {
		n := s.Not.Value
		forbidOthers(n, required, forbidden)
		for _, b := range append(append(openapi3.SchemaRefs{}, n.AnyOf...), n.OneOf...) {
			if b.Value != nil {
				forbidOthers(b.Value, required, forbidden)
			}
		}
	}
	return required, forbidden
}

// pick chooses a branch that has required fields, or reports none.
func (g *generator) pick(branches openapi3.SchemaRefs) (int, bool) {
	if len(branches) == 0 {
		return 0, false
	}
	i := g.r.IntN(len(branches))
	if branches[i].Value == nil {
		return 0, false
	}
	return i, true
}

// forbidOthers forbids one required field of b that is not required
// already, so that b does not match.
func forbidOthers(b *openapi3.Schema, required, forbidden map[string]bool) {
	for _, n := range b.Required {
		if !required[n] {
			forbidden[n] = true
			return
		}
	}
}

func (g *generator) array(s *openapi3.Schema, depth int) []any {
	lo := int(s.MinItems)
	hi := lo + 3
	if depth >= maxDepth || g.optional == 0 {
		hi = lo
	}
	if s.MaxItems != nil && int(*s.MaxItems) < hi {
		hi = int(*s.MaxItems)
	}
	if hi < lo {
		hi = lo
	}
	n := lo + g.r.IntN(hi-lo+1)
	var listType string
	_ = extString(s, "x-kubernetes-list-type", &listType)
	var mapKeys []string
	if listType == "map" {
		_ = extStrings(s, "x-kubernetes-list-map-keys", &mapKeys)
	}
	unique := s.UniqueItems || listType == "set" || listType == "map"
	out := []any{}
	seen := map[string]bool{}
	var items *openapi3.Schema
	if s.Items != nil {
		items = s.Items.Value
	}
	for tries := 0; len(out) < n && tries < 10*n+10; tries++ {
		v := g.value(items, depth+1)
		if m, ok := v.(map[string]any); ok && listType == "map" {
			g.ensureKeys(m, items, mapKeys, depth)
		}
		if unique {
			k := uniqueKey(v, mapKeys)
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		out = append(out, v)
	}
	return out
}

// ensureKeys gives an item of a map list every key field.
func (g *generator) ensureKeys(m map[string]any, items *openapi3.Schema, keys []string, depth int) {
	for _, k := range keys {
		if _, ok := m[k]; !ok && items != nil {
			m[k] = g.value(propSchema(items.Properties[k]), depth+2)
		}
	}
}

func extString(s *openapi3.Schema, name string, out *string) error {
	_, err := extension(s, name, out)
	return err
}

func extStrings(s *openapi3.Schema, name string, out *[]string) error {
	_, err := extension(s, name, out)
	return err
}
