package celrules

import (
	"fmt"
	"sort"

	"github.com/getkin/kin-openapi/openapi3"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"

	"github.com/specd-io/specd/schemas/structural"
)

// rule is one x-kubernetes-validations entry as written.
type rule struct {
	Rule              string  `json:"rule"`
	Message           string  `json:"message,omitempty"`
	MessageExpression string  `json:"messageExpression,omitempty"`
	Reason            *string `json:"reason,omitempty"`
	FieldPath         string  `json:"fieldPath,omitempty"`
	OptionalOldSelf   *bool   `json:"optionalOldSelf,omitempty"`
}

// converter rewrites a kin-openapi schema as apiextensions JSONSchemaProps,
// keeping what the CEL stack reads: the structure, the types and formats,
// the size limits that bound costs, the x-kubernetes-* extensions and the
// rules. Problems are reported with JSON pointers.
type converter struct {
	errs  []Problem
	rules int
}

func (c *converter) errorf(ptr, format string, args ...any) {
	c.errs = append(c.errs, Problem{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

func (c *converter) props(s *openapi3.Schema, ptr string) apiextensions.JSONSchemaProps {
	var p apiextensions.JSONSchemaProps
	if s == nil {
		return p
	}
	c.typeOf(&p, s)
	p.Format = s.Format
	p.Required = s.Required
	p.MaxLength = limit(s.MaxLength)
	p.MaxItems = limit(s.MaxItems)
	p.MaxProperties = limit(s.MaxProps)
	c.extensions(&p, s, ptr)
	if len(s.Properties) > 0 {
		p.Properties = make(map[string]apiextensions.JSONSchemaProps, len(s.Properties))
		for name, ref := range s.Properties {
			p.Properties[name] = c.props(ref.Value, join(ptr, "properties", name))
		}
	}
	if s.Items != nil {
		items := c.props(s.Items.Value, join(ptr, "items"))
		p.Items = &apiextensions.JSONSchemaPropsOrArray{Schema: &items}
	}
	if ap := s.AdditionalProperties; ap.Schema != nil {
		sub := c.props(ap.Schema.Value, join(ptr, "additionalProperties"))
		p.AdditionalProperties = &apiextensions.JSONSchemaPropsOrBool{Allows: true, Schema: &sub}
	} else if ap.Has != nil {
		p.AdditionalProperties = &apiextensions.JSONSchemaPropsOrBool{Allows: *ap.Has}
	}
	c.refuseNested(s, ptr)
	return p
}

// refuseNested refuses rules inside allOf, anyOf, oneOf and not, as
// kube-apiserver refuses them in a CRD: its validator does not run them.
func (c *converter) refuseNested(s *openapi3.Schema, ptr string) {
	for _, q := range quantifiers(s) {
		c.nestedRules(q.ref, join(ptr, q.tokens...))
	}
}

func (c *converter) nestedRules(ref *openapi3.SchemaRef, ptr string) {
	if ref == nil || ref.Value == nil {
		return
	}
	s := ref.Value
	if _, ok := s.Extensions[structural.ExtValidations]; ok {
		c.errorf(join(ptr, structural.ExtValidations), "Forbidden: must be empty to be structural")
	}
	for _, name := range sortedNames(s.Properties) {
		c.nestedRules(s.Properties[name], join(ptr, "properties", name))
	}
	c.nestedRules(s.Items, join(ptr, "items"))
	c.nestedRules(s.AdditionalProperties.Schema, join(ptr, "additionalProperties"))
	c.refuseNested(s, ptr)
}

// quantifier is one branch of allOf, anyOf, oneOf or not.
type quantifier struct {
	tokens []string
	ref    *openapi3.SchemaRef
}

func quantifiers(s *openapi3.Schema) []quantifier {
	var out []quantifier
	for _, kw := range []struct {
		name string
		refs openapi3.SchemaRefs
	}{{"allOf", s.AllOf}, {"anyOf", s.AnyOf}, {"oneOf", s.OneOf}} {
		for i, ref := range kw.refs {
			out = append(out, quantifier{[]string{kw.name, fmt.Sprint(i)}, ref})
		}
	}
	if s.Not != nil {
		out = append(out, quantifier{[]string{"not"}, s.Not})
	}
	return out
}

// typeOf maps an OpenAPI 3.0 type, or a 3.1 type list with "null", to a
// CRD's type and nullable.
func (c *converter) typeOf(p *apiextensions.JSONSchemaProps, s *openapi3.Schema) {
	p.Nullable = s.Nullable
	var types []string
	for _, t := range s.Type.Slice() {
		if t == "null" {
			p.Nullable = true
			continue
		}
		types = append(types, t)
	}
	if len(types) == 1 {
		p.Type = types[0]
	}
}

func (c *converter) extensions(p *apiextensions.JSONSchemaProps, s *openapi3.Schema, ptr string) {
	if len(s.Extensions) == 0 {
		return
	}
	var preserve bool
	c.extension(s, ptr, structural.ExtPreserveUnknownFields, &preserve)
	if preserve {
		p.XPreserveUnknownFields = &preserve
	}
	c.extension(s, ptr, structural.ExtIntOrString, &p.XIntOrString)
	c.extension(s, ptr, structural.ExtEmbeddedResource, &p.XEmbeddedResource)
	c.extension(s, ptr, structural.ExtListMapKeys, &p.XListMapKeys)
	var listType, mapType string
	if c.extension(s, ptr, structural.ExtListType, &listType) {
		p.XListType = &listType
	}
	if c.extension(s, ptr, structural.ExtMapType, &mapType) {
		p.XMapType = &mapType
	}
	var rules []rule
	c.extension(s, ptr, structural.ExtValidations, &rules)
	for _, r := range rules {
		c.rules++
		p.XValidations = append(p.XValidations, apiextensions.ValidationRule{
			Rule: r.Rule, Message: r.Message, MessageExpression: r.MessageExpression,
			Reason: (*apiextensions.FieldValueErrorReason)(r.Reason), FieldPath: r.FieldPath,
			OptionalOldSelf: r.OptionalOldSelf,
		})
	}
}

// extension decodes the extension name of s into out and reports whether s
// has it. kin-openapi keeps extensions as decoded JSON, or as raw JSON when
// a schema is built by hand.
func (c *converter) extension(s *openapi3.Schema, ptr, name string, out any) bool {
	v, ok := s.Extensions[name]
	if !ok {
		return false
	}
	if assigned(v, out) {
		return true
	}
	if _, err := structural.Extension(s, name, out); err != nil {
		c.errorf(join(ptr, name), "invalid %s: %v", name, err)
		return false
	}
	return true
}

// assigned stores the decoded JSON booleans and strings that most
// extensions are without a JSON round trip, and reports whether it did.
func assigned(v, out any) bool {
	switch out := out.(type) {
	case *bool:
		b, ok := v.(bool)
		*out = b
		return ok
	case *string:
		str, ok := v.(string)
		*out = str
		return ok
	}
	return false
}

// hasRules reports whether s or a schema below it carries
// x-kubernetes-validations, without converting anything.
func hasRules(s *openapi3.Schema, seen map[*openapi3.Schema]bool) bool {
	if s == nil || seen[s] {
		return false
	}
	seen[s] = true
	if _, ok := s.Extensions[structural.ExtValidations]; ok {
		return true
	}
	for _, ref := range s.Properties {
		if hasRules(ref.Value, seen) {
			return true
		}
	}
	if s.Items != nil && hasRules(s.Items.Value, seen) {
		return true
	}
	if ap := s.AdditionalProperties.Schema; ap != nil && hasRules(ap.Value, seen) {
		return true
	}
	for _, q := range quantifiers(s) {
		if q.ref != nil && hasRules(q.ref.Value, seen) {
			return true
		}
	}
	return false
}

func limit(v *uint64) *int64 {
	if v == nil {
		return nil
	}
	n := int64(*v)
	return &n
}

// join appends reference tokens to a JSON pointer, escaping them.
var join = structural.PointerJoin

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
