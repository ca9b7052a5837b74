package schemas

import (
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/specd-io/specd/schemas/celrules"
	"github.com/specd-io/specd/schemas/structural"
)

// compileSchema compiles a resource's schema (at pointer at in the file,
// already without the x-specd-* extensions) and reports the compiler's problems at their place in the file.
func compileSchema(d decoder, at string, s *openapi3.Schema) *structural.Schema {
	if cycles := findCycles(at, s); len(cycles) > 0 {
		for _, c := range cycles {
			d.probs.add(d.file, c.pointer, "%s", c.message)
		}
		return nil
	}
	compiled, errs := structural.Compile(s)
	for _, e := range errs {
		d.probs.add(d.file, filePointer(at, s, e.Pointer), "%s", e.Message)
	}
	if len(errs) > 0 {
		return nil
	}
	return withRules(d, at, s, compiled)
}

// withRules compiles the schema's CEL rules (x-kubernetes-validations)
// once, at load, and keeps them with the compiled schema; a rule that does
// not compile or costs too much is a problem at its place in the file.
func withRules(d decoder, at string, s *openapi3.Schema, compiled *structural.Schema) *structural.Schema {
	rules, probs := celrules.Compile(s)
	for _, p := range probs {
		d.probs.add(d.file, filePointer(at, s, p.Pointer), "%s", p.Message)
	}
	if len(probs) > 0 {
		return nil
	}
	if rules == nil {
		return compiled
	}
	return compiled.WithRules(rules)
}

// withoutSpecdExtensions is a shallow copy of s without the x-specd-*
// extensions, which are for the loader and not part of the object schema.
func withoutSpecdExtensions(s *openapi3.Schema) *openapi3.Schema {
	c := *s
	c.Extensions = make(map[string]any, len(s.Extensions))
	for k, v := range s.Extensions {
		if !strings.HasPrefix(k, "x-specd") {
			c.Extensions[k] = v
		}
	}
	return &c
}

// subSchema is one step from a schema to a sub-schema.
type subSchema struct {
	tokens []string
	ref    *openapi3.SchemaRef
}

// subSchemas lists the direct sub-schemas of s, $refs included.
func subSchemas(s *openapi3.Schema) []subSchema {
	var out []subSchema
	add := func(ref *openapi3.SchemaRef, tokens ...string) {
		if ref != nil && ref.Value != nil {
			out = append(out, subSchema{tokens, ref})
		}
	}
	for _, name := range sortedKeys(s.Properties) {
		add(s.Properties[name], "properties", name)
	}
	add(s.Items, "items")
	add(s.AdditionalProperties.Schema, "additionalProperties")
	add(s.Not, "not")
	for _, kw := range []struct {
		name string
		refs openapi3.SchemaRefs
	}{{"allOf", s.AllOf}, {"anyOf", s.AnyOf}, {"oneOf", s.OneOf}} {
		for i, r := range kw.refs {
			add(r, kw.name, index(i))
		}
	}
	return out
}

// refTarget is the file pointer a local $ref points to, or "".
func refTarget(ref string) string {
	if strings.HasPrefix(ref, "#/") {
		return strings.TrimPrefix(ref, "#")
	}
	return ""
}

// findCycles reports every $ref that makes a schema contain itself: a
// structural schema is a finite tree.
func findCycles(at string, s *openapi3.Schema) []located {
	var out []located
	onStack := map[*openapi3.Schema]bool{}
	done := map[*openapi3.Schema]bool{}
	var walk func(at string, s *openapi3.Schema)
	walk = func(at string, s *openapi3.Schema) {
		if done[s] {
			return
		}
		onStack[s] = true
		for _, c := range subSchemas(s) {
			cat := ptr(at, c.tokens...)
			if onStack[c.ref.Value] {
				out = append(out, located{
					pointer: ptr(cat, "$ref"),
					message: "$ref " + strconv.Quote(c.ref.Ref) + " makes the schema recursive; a structural schema cannot contain itself (use x-kubernetes-preserve-unknown-fields for free-form data)",
				})
				continue
			}
			if t := refTarget(c.ref.Ref); t != "" {
				cat = t
			}
			walk(cat, c.ref.Value)
		}
		onStack[s] = false
		done[s] = true
	}
	walk(at, s)
	return out
}

// filePointer turns a pointer relative to the compiled schema s (found at
// base) into a pointer in the file, following $refs into the schemas they
// name.
func filePointer(base string, s *openapi3.Schema, rel string) string {
	toks := splitPointer(rel)
	at, cur := base, s
	for i := 0; i < len(toks); {
		next, n := step(cur, toks[i:])
		if next == nil || next.Value == nil {
			return ptr(at, toks[i:]...)
		}
		if t := refTarget(next.Ref); t != "" {
			at = t
		} else {
			at = ptr(at, toks[i:i+n]...)
		}
		cur, i = next.Value, i+n
	}
	return at
}

// step follows the sub-schema that toks start with; n is the number of
// tokens used.
func step(s *openapi3.Schema, toks []string) (ref *openapi3.SchemaRef, n int) {
	switch toks[0] {
	case "items":
		return s.Items, 1
	case "additionalProperties":
		return s.AdditionalProperties.Schema, 1
	case "not":
		return s.Not, 1
	}
	if len(toks) < 2 {
		return nil, 0
	}
	switch toks[0] {
	case "properties":
		return s.Properties[toks[1]], 2
	case "allOf", "anyOf", "oneOf":
		list := map[string]openapi3.SchemaRefs{"allOf": s.AllOf, "anyOf": s.AnyOf, "oneOf": s.OneOf}[toks[0]]
		i, err := strconv.Atoi(toks[1])
		if err != nil || i < 0 || i >= len(list) {
			return nil, 0
		}
		return list[i], 2
	}
	return nil, 0
}
