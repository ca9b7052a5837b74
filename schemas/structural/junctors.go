package structural

import (
	"fmt"
	"reflect"
	"sort"

	"github.com/getkin/kin-openapi/openapi3"
)

// allOf, anyOf, oneOf and not hold value validations, as kube-apiserver's
// structural schema rules for a CRD say (apiextensions-apiserver,
// pkg/apiserver/schema: validateNestedValueValidation and
// validateStructuralCompleteness): they may restrict values, and list
// properties and items to restrict theirs, but may not describe the
// structure (type, nullable, default, title, description,
// additionalProperties, the x-kubernetes extensions), and every property
// or items they name must also be declared outside them. The exception is
// the int-or-string pattern anyOf: [{type: integer}, {type: string}] of a
// structural schema, or of its first allOf.

// compileJunctors compiles n's allOf, anyOf, oneOf and not (of s, at ptr)
// as value validations, and checks that what they name is declared in
// the structure when s is structural itself.
func (c *compiler) compileJunctors(n *node, s *openapi3.Schema, ptr string) {
	anyOfExempt := c.exempt == s || (c.nested == 0 && isIntOrStringAnyOf(s.AnyOf))
	if c.nested == 0 && len(s.AllOf) > 0 && s.AllOf[0].Value != nil && isIntOrStringAnyOf(s.AllOf[0].Value.AnyOf) {
		c.exempt = s.AllOf[0].Value
	}
	n.allOf = c.compileBranches(s.AllOf, PointerJoin(ptr, "allOf"), true)
	c.exempt = nil
	n.anyOf = c.compileBranches(s.AnyOf, PointerJoin(ptr, "anyOf"), !anyOfExempt)
	n.oneOf = c.compileBranches(s.OneOf, PointerJoin(ptr, "oneOf"), true)
	if s.Not != nil {
		c.nested++
		n.not = c.compileRef(s.Not, PointerJoin(ptr, "not"))
		c.nested--
	}
	if c.nested == 0 {
		c.completeJunctors(s, s, ptr, ptr)
	}
}

// compileBranches compiles the branches of a junctor, as value
// validations when nested is true.
func (c *compiler) compileBranches(refs openapi3.SchemaRefs, ptr string, nested bool) []*node {
	saved := c.nested
	if nested {
		c.nested++
	} else {
		c.nested = 0
	}
	defer func() { c.nested = saved }()
	var out []*node
	for i, ref := range refs {
		if n := c.compileRef(ref, PointerJoin(ptr, fmt.Sprint(i))); n != nil {
			out = append(out, n)
		}
	}
	return out
}

// isIntOrStringAnyOf reports anyOf: [{type: integer}, {type: string}],
// with nothing else in either branch.
func isIntOrStringAnyOf(refs openapi3.SchemaRefs) bool {
	return len(refs) == 2 && onlyType(refs[0], "integer") && onlyType(refs[1], "string")
}

func onlyType(ref *openapi3.SchemaRef, typ string) bool {
	if ref == nil || ref.Value == nil || ref.Value.Type == nil || !ref.Value.Type.Is(typ) || len(ref.Value.Type.Slice()) != 1 {
		return false
	}
	rest := *ref.Value
	rest.Type = nil
	if len(rest.Extensions) == 0 {
		rest.Extensions = nil
	}
	return reflect.DeepEqual(rest, openapi3.Schema{})
}

// checkNested reports what a value validation may not say.
func (c *compiler) checkNested(s *openapi3.Schema, ptr string) {
	forbid := func(cond bool, key, msg string) {
		if cond {
			c.errorf(PointerJoin(ptr, key), "%s", msg)
		}
	}
	const empty, undefined, isFalse = "must be empty to be structural", "must be undefined to be structural", "must be false to be structural"
	forbid(len(s.Type.Slice()) > 0, "type", empty)
	forbid(s.AdditionalProperties.Schema != nil || (s.AdditionalProperties.Has != nil && *s.AdditionalProperties.Has), "additionalProperties", undefined)
	forbid(s.Default != nil, "default", undefined)
	forbid(s.Title != "", "title", empty)
	forbid(s.Description != "", "description", empty)
	forbid(s.Nullable, "nullable", isFalse)
	for _, ext := range []string{ExtPreserveUnknownFields, ExtEmbeddedResource, ExtIntOrString} {
		var b bool
		_, _ = Extension(s, ext, &b)
		forbid(b, ext, isFalse)
	}
	var keys []string
	_, _ = Extension(s, ExtListMapKeys, &keys)
	forbid(len(keys) > 0, ExtListMapKeys, empty)
	_, listType := s.Extensions[ExtListType]
	forbid(listType, ExtListType, undefined)
	_, mapType := s.Extensions[ExtMapType]
	forbid(mapType, ExtMapType, undefined)
	var rules []any
	_, _ = Extension(s, ExtValidations, &rules)
	forbid(len(rules) > 0, ExtValidations, empty)
	if _, ok := s.Properties["metadata"]; ok {
		c.errorf(PointerJoin(ptr, "properties", "metadata"), "must not be specified in a nested context")
	}
}

// completeJunctors checks the value validations of v (v's allOf, anyOf,
// oneOf and not, at vPtr) against the structural schema s (at sPtr).
func (c *compiler) completeJunctors(v, s *openapi3.Schema, sPtr, vPtr string) {
	for _, j := range []struct {
		key  string
		refs openapi3.SchemaRefs
	}{{"not", openapi3.SchemaRefs{v.Not}}, {"allOf", v.AllOf}, {"anyOf", v.AnyOf}, {"oneOf", v.OneOf}} {
		for i, ref := range j.refs {
			if ref == nil || ref.Value == nil {
				continue
			}
			at := PointerJoin(vPtr, j.key, fmt.Sprint(i))
			if j.key == "not" {
				at = PointerJoin(vPtr, "not")
			}
			c.complete(ref.Value, s, sPtr, at)
		}
	}
}

// complete checks that every property and items that the value
// validation v (at vPtr) names is declared in the structural schema s
// (at sPtr; nil when it is not).
func (c *compiler) complete(v, s *openapi3.Schema, sPtr, vPtr string) {
	if s == nil {
		c.errorf(sPtr, "must be specified because it is defined in %s", vPtr)
		return
	}
	c.completeJunctors(v, s, sPtr, vPtr)
	if v.Items != nil && v.Items.Value != nil {
		c.complete(v.Items.Value, schemaOf(s.Items), PointerJoin(sPtr, "items"), PointerJoin(vPtr, "items"))
	}
	for _, name := range sortedNames(v.Properties) {
		vp := v.Properties[name]
		if vp == nil || vp.Value == nil {
			continue
		}
		c.complete(vp.Value, schemaOf(s.Properties[name]), PointerJoin(sPtr, "properties", name), PointerJoin(vPtr, "properties", name))
	}
}

func schemaOf(ref *openapi3.SchemaRef) *openapi3.Schema {
	if ref == nil {
		return nil
	}
	return ref.Value
}

func sortedNames(m openapi3.Schemas) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
