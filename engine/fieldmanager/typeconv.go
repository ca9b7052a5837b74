package fieldmanager

import (
	"fmt"
	"sort"

	"github.com/getkin/kin-openapi/openapi3"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/specd-io/specd/schemas/structural"
)

// The names of the types every resource schema shares, as kube-openapi's
// schemaconv names them.
const (
	untypedName = "__untyped_atomic_"
	deducedName = "__untyped_deduced_"
	objectMeta  = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
	ownerRef    = "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference"
	rootName    = "specd.resource"
)

func ptr[T any](v T) *T { return &v }

func named(n string) schema.TypeRef { return schema.TypeRef{NamedType: ptr(n)} }

func scalar(s schema.Scalar) schema.TypeRef {
	return schema.TypeRef{Inlined: schema.Atom{Scalar: ptr(s)}}
}

// sharedTypes are the untyped and deduced types of kube-openapi's
// schemaconv and the ObjectMeta every resource has, as client-go's
// applyconfigurations schema declares it.
func sharedTypes() []schema.TypeDef {
	str := scalar(schema.String)
	field := func(name string, t schema.TypeRef) schema.StructField { return schema.StructField{Name: name, Type: t} }
	untyped := schema.Scalar("untyped")
	return []schema.TypeDef{
		{Name: untypedName, Atom: schema.Atom{Scalar: &untyped,
			List: &schema.List{ElementType: named(untypedName), ElementRelationship: schema.Atomic},
			Map:  &schema.Map{ElementType: named(untypedName), ElementRelationship: schema.Atomic}}},
		{Name: deducedName, Atom: schema.Atom{Scalar: &untyped,
			List: &schema.List{ElementType: named(untypedName), ElementRelationship: schema.Atomic},
			Map:  &schema.Map{ElementType: named(deducedName), ElementRelationship: schema.Separable}}},
		{Name: objectMeta, Atom: schema.Atom{Map: &schema.Map{Fields: []schema.StructField{
			field("annotations", schema.TypeRef{Inlined: schema.Atom{Map: &schema.Map{ElementType: str}}}),
			field("creationTimestamp", named(untypedName)),
			field("deletionGracePeriodSeconds", scalar(schema.Numeric)),
			field("deletionTimestamp", named(untypedName)),
			field("finalizers", schema.TypeRef{Inlined: schema.Atom{List: &schema.List{ElementType: str, ElementRelationship: schema.Associative}}}),
			field("generateName", str),
			field("generation", scalar(schema.Numeric)),
			field("labels", schema.TypeRef{Inlined: schema.Atom{Map: &schema.Map{ElementType: str}}}),
			field("managedFields", schema.TypeRef{Inlined: schema.Atom{List: &schema.List{ElementType: named(untypedName), ElementRelationship: schema.Atomic}}}),
			field("name", str),
			field("namespace", str),
			field("ownerReferences", schema.TypeRef{Inlined: schema.Atom{List: &schema.List{ElementType: named(ownerRef),
				ElementRelationship: schema.Associative, Keys: []string{"uid"}}}}),
			field("resourceVersion", str),
			field("selfLink", str),
			field("uid", str),
		}}}},
		{Name: ownerRef, Atom: schema.Atom{Map: &schema.Map{ElementRelationship: schema.Atomic, Fields: []schema.StructField{
			field("apiVersion", str), field("blockOwnerDeletion", scalar(schema.Boolean)), field("controller", scalar(schema.Boolean)),
			field("kind", str), field("name", str), field("uid", str),
		}}}},
	}
}

// TypeFromOpenAPI builds the structured-merge-diff type of a resource from
// its structural schema (references resolved), as kube-apiserver builds it
// for a CustomResourceDefinition: apiVersion, kind and ObjectMeta at the
// root and in embedded resources; x-kubernetes-list-type (atomic by
// default, set, map with x-kubernetes-list-map-keys) and
// x-kubernetes-map-type; fields without a type and
// x-kubernetes-preserve-unknown-fields deduced from the value.
func TypeFromOpenAPI(s *openapi3.Schema) (*typed.ParseableType, error) {
	if s == nil {
		// No schema: every field is deduced from its value.
		s = &openapi3.Schema{Type: &openapi3.Types{"object"}, Extensions: map[string]any{"x-kubernetes-preserve-unknown-fields": true}}
	}
	c := converter{}
	root := c.object(s, true)
	if c.err != nil {
		return nil, c.err
	}
	p := &typed.Parser{Schema: schema.Schema{Types: append(sharedTypes(), schema.TypeDef{Name: rootName, Atom: root})}}
	t := p.Type(rootName)
	if !t.IsValid() {
		return nil, fmt.Errorf("fieldmanager: invalid type")
	}
	return &t, nil
}

type converter struct {
	err   error
	depth int
}

// maxDepth bounds the conversion of a (necessarily acyclic) schema.
const maxDepth = 64

func (c *converter) ref(r *openapi3.SchemaRef, preserve bool) schema.TypeRef {
	if r == nil || r.Value == nil {
		return named(deducedName)
	}
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > maxDepth {
		c.err = fmt.Errorf("fieldmanager: schema nested deeper than %d", maxDepth)
		return named(deducedName)
	}
	return c.typeRef(r.Value, preserve)
}

func (c *converter) typeRef(s *openapi3.Schema, preserve bool) schema.TypeRef {
	if boolExt(s, "x-kubernetes-int-or-string") {
		return scalar(schema.Scalar("untyped"))
	}
	if boolExt(s, "x-kubernetes-embedded-resource") {
		return schema.TypeRef{Inlined: c.object(s, true)}
	}
	switch {
	case s.Type.Is("object") || (s.Type == nil && len(s.Properties) > 0):
		return schema.TypeRef{Inlined: c.object(s, false)}
	case s.Type.Is("array"):
		return schema.TypeRef{Inlined: c.list(s, preserve)}
	case s.Type.Is("string"):
		return scalar(schema.String)
	case s.Type.Is("integer"), s.Type.Is("number"):
		return scalar(schema.Numeric)
	case s.Type.Is("boolean"):
		return scalar(schema.Boolean)
	}
	return named(deducedName)
}

// object converts an object schema; embedded (and the root) gets
// apiVersion, kind and metadata.
func (c *converter) object(s *openapi3.Schema, embedded bool) schema.Atom {
	preserve := boolExt(s, "x-kubernetes-preserve-unknown-fields")
	m := &schema.Map{}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	has := map[string]bool{}
	for _, n := range names {
		has[n] = true
		m.Fields = append(m.Fields, schema.StructField{Name: n, Type: c.ref(s.Properties[n], preserve)})
	}
	if embedded {
		for _, f := range []schema.StructField{
			{Name: "apiVersion", Type: scalar(schema.String)},
			{Name: "kind", Type: scalar(schema.String)},
			{Name: "metadata", Type: named(objectMeta)},
		} {
			if !has[f.Name] || f.Name == "metadata" {
				m.Fields = replaceField(m.Fields, f)
			}
		}
	}
	ap := s.AdditionalProperties
	switch {
	case ap.Schema != nil:
		m.ElementType = c.ref(ap.Schema, preserve)
	case ap.Has != nil && *ap.Has:
		m.ElementType = named(deducedName)
	case ap.Has == nil && (preserve || len(s.Properties) == 0):
		m.ElementType = named(deducedName)
	}
	if preserve {
		m.ElementType = named(deducedName)
	}
	if mt := stringExt(s, "x-kubernetes-map-type"); mt == "atomic" {
		m.ElementRelationship = schema.Atomic
	} else {
		m.ElementRelationship = schema.Separable
	}
	return schema.Atom{Map: m}
}

func replaceField(fields []schema.StructField, f schema.StructField) []schema.StructField {
	for i := range fields {
		if fields[i].Name == f.Name {
			fields[i] = f
			return fields
		}
	}
	out := append(fields, f)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// list converts an array schema: atomic unless x-kubernetes-list-type
// says set or map.
func (c *converter) list(s *openapi3.Schema, preserve bool) schema.Atom {
	l := &schema.List{ElementType: c.ref(s.Items, preserve), ElementRelationship: schema.Atomic}
	switch stringExt(s, "x-kubernetes-list-type") {
	case "set":
		l.ElementRelationship = schema.Associative
	case "map":
		l.ElementRelationship = schema.Associative
		var keys []string
		if ok, err := structural.Extension(s, "x-kubernetes-list-map-keys", &keys); ok && err == nil {
			l.Keys = keys
		}
	}
	return schema.Atom{List: l}
}

// boolExt and stringExt read extensions the loader has already checked,
// so a value of the wrong type reads as unset.
func boolExt(s *openapi3.Schema, name string) bool {
	var b bool
	_, _ = structural.Extension(s, name, &b)
	return b
}

func stringExt(s *openapi3.Schema, name string) string {
	var v string
	_, _ = structural.Extension(s, name, &v)
	return v
}
