package openapi

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/schemas"
)

// The object schemas of a group version document: each served kind as
// its file declares it, with apiVersion, kind and metadata made explicit,
// its <Kind>List, the schemas the kinds refer to ($refs are kept, so that
// generators name the types), and the meta types.

const (
	extPreserveUnknown = "x-kubernetes-preserve-unknown-fields"
	extEmbedded        = "x-kubernetes-embedded-resource"
	// specdExtPrefix marks specd's own extensions (x-specd-resource,
	// x-specd-hooks): they configure the server and are not published.
	specdExtPrefix = "x-specd"
)

var (
	typeMetaDocs = metav1.TypeMeta{}.SwaggerDoc()
	objectMetaOf = metav1.PartialObjectMetadata{}.SwaggerDoc()["metadata"]
	listMetaOf   = metav1.PartialObjectMetadataList{}.SwaggerDoc()["metadata"]
)

// gvSchemas are the schemas of the document of served, the resources of
// one group version, but for the shared meta schemas (metaEncoded).
func gvSchemas(group, version string, served []*schemas.ResourceVersion) map[string]any {
	comps := make(map[string]any, 4*len(served))
	p := newSchemaPublisher(group, version, served)
	for _, rv := range served {
		res := rv.Resource
		comps[schemaName(group, version, res.Kind)] = p.kindSchema(rv)
		comps[schemaName(group, version, res.ListKind)] = listSchema(rv)
		comps[deletedName(group, version, res.Kind)] = deletedSchema(rv)
	}
	for user, target := range p.targets {
		name := p.names[user]
		if _, taken := comps[name]; !taken { // a kind refers to a kind
			comps[name] = p.publish(target)
		}
	}
	return comps
}

func hasScale(served []*schemas.ResourceVersion) bool {
	return slices.ContainsFunc(served, func(rv *schemas.ResourceVersion) bool { return rv.Scale != nil })
}

// schemaPublisher turns the schemas of one group version file into
// published ones.
type schemaPublisher struct {
	group, version string
	targets        map[string]*openapi3.Schema // named schemas the kinds refer to, by their name in the file
	names          map[string]string           // published name of each
	users          map[string]string           // and back, from the published $ref
}

func newSchemaPublisher(group, version string, served []*schemas.ResourceVersion) *schemaPublisher {
	p := &schemaPublisher{group: group, version: version, targets: make(map[string]*openapi3.Schema)}
	generated := make(map[string]bool, 2*len(served))
	for _, rv := range served {
		generated[schemaName(group, version, rv.Resource.ListKind)] = true
		generated[deletedName(group, version, rv.Resource.Kind)] = true
		if rv.OpenAPI != nil {
			collectRefs(rv.OpenAPI, p.targets, make(map[*openapi3.Schema]bool))
		}
	}
	p.names = make(map[string]string, len(p.targets))
	p.users = make(map[string]string, len(p.targets))
	for user := range p.targets {
		// Names are qualified as kinds are, so that the one Swagger 2.0
		// document of every group version has no clash.
		name := schemaName(group, version, user)
		if generated[name] {
			name += "Schema" // named like a generated <Kind>List
		}
		p.names[user] = name
		p.users[v3RefPrefix+name] = user
	}
	return p
}

// kindSchema is a kind's schema as its file declares it, with apiVersion,
// kind and metadata made explicit.
func (p *schemaPublisher) kindSchema(rv *schemas.ResourceVersion) map[string]any {
	res := rv.Resource
	var m map[string]any
	if rv.OpenAPI != nil {
		m = p.publish(rv.OpenAPI)
	}
	if m == nil {
		m = map[string]any{extPreserveUnknown: true}
	}
	addTypeAndObjectMeta(m)
	m["type"] = "object"
	m[extGVK] = []oaGVK{{Group: res.Group, Version: rv.Version, Kind: res.Kind}}
	return m
}

// addTypeAndObjectMeta sets apiVersion, kind and metadata (ObjectMeta) in
// the properties of object schema m.
func addTypeAndObjectMeta(m map[string]any) {
	props, _ := m["properties"].(map[string]any)
	if props == nil {
		props = make(map[string]any, 3)
		m["properties"] = props
	}
	props["apiVersion"] = map[string]any{"type": "string", "description": typeMetaDocs["apiVersion"]}
	props["kind"] = map[string]any{"type": "string", "description": typeMetaDocs["kind"]}
	props["metadata"] = map[string]any{"description": objectMetaOf, "allOf": []any{map[string]any{"$ref": v3RefPrefix + nameObjMeta}}}
}

func listSchema(rv *schemas.ResourceVersion) map[string]any {
	res := rv.Resource
	return map[string]any{
		"type":        "object",
		"description": res.ListKind + " is a list of " + res.Kind + ".",
		"required":    []string{"items"},
		"properties": map[string]any{
			"apiVersion": map[string]any{"type": "string", "description": typeMetaDocs["apiVersion"]},
			"kind":       map[string]any{"type": "string", "description": typeMetaDocs["kind"]},
			"metadata":   map[string]any{"description": listMetaOf, "allOf": []any{map[string]any{"$ref": v3RefPrefix + nameList}}},
			"items": map[string]any{"type": "array", "description": "The " + res.Plural + ".",
				"items": map[string]any{"$ref": v3RefPrefix + schemaName(res.Group, rv.Version, res.Kind)}},
		},
		extGVK: []oaGVK{{Group: res.Group, Version: rv.Version, Kind: res.ListKind}},
	}
}

func deletedSchema(rv *schemas.ResourceVersion) map[string]any {
	kind := rv.Resource.Kind
	return map[string]any{
		"description": "What deleting " + article(kind) + " " + kind + " answers: a Success Status once it is gone, or the " + kind + " while finalizers hold it.",
		"oneOf":       []any{v3Ref(nameStatus), v3Ref(schemaName(rv.Resource.Group, rv.Version, kind))},
	}
}

// publish encodes s as generic JSON, made ready to publish by fix. The
// registry's schema is not changed.
func (p *schemaPublisher) publish(s *openapi3.Schema) map[string]any {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil
	}
	p.fix(m)
	return m
}

// fix walks the schema keywords of s (never default, enum or example,
// which are data): $refs point to the published names, specd's own
// extensions go, and embedded resources get their type and object meta.
func (p *schemaPublisher) fix(s map[string]any) {
	for k, v := range s {
		switch {
		case k == "$ref":
			if r, ok := v.(string); ok {
				s[k] = v3RefPrefix + p.name(refName(r))
			}
		case strings.HasPrefix(k, specdExtPrefix):
			delete(s, k)
		case k == "properties":
			if props, ok := v.(map[string]any); ok {
				for name, c := range props {
					p.fixAny(c)
					props[name] = p.describedRef(c)
				}
			}
		case k == "items" || k == "additionalProperties" || k == "not":
			p.fixAny(v)
		case k == "allOf" || k == "anyOf" || k == "oneOf":
			if l, ok := v.([]any); ok {
				for _, c := range l {
					p.fixAny(c)
				}
			}
		}
	}
	if s[extEmbedded] == true {
		addTypeAndObjectMeta(s)
		s["required"] = appendMissing(s["required"], "apiVersion", "kind")
	}
}

// describedRef turns a property that is only a $ref into {description,
// allOf: [$ref]}, as kube publishes metadata: kubectl explain lists a
// field with the description the property itself carries, and generators
// still name the type.
func (p *schemaPublisher) describedRef(prop any) any {
	m, ok := prop.(map[string]any)
	if !ok || len(m) != 1 {
		return prop
	}
	r, _ := m["$ref"].(string)
	t := p.targets[p.users[r]]
	if t == nil || t.Description == "" {
		return prop
	}
	return map[string]any{"description": t.Description, "allOf": []any{m}}
}

func (p *schemaPublisher) fixAny(v any) {
	if m, ok := v.(map[string]any); ok {
		p.fix(m)
	}
}

func (p *schemaPublisher) name(user string) string {
	if n, ok := p.names[user]; ok {
		return n
	}
	return schemaName(p.group, p.version, user)
}

func appendMissing(required any, names ...string) []any {
	l, _ := required.([]any)
	for _, n := range names {
		if !slices.Contains(l, any(n)) {
			l = append(l, n)
		}
	}
	return l
}

// collectRefs finds every named schema reachable from s.
func collectRefs(s *openapi3.Schema, refs map[string]*openapi3.Schema, seen map[*openapi3.Schema]bool) {
	if s == nil || seen[s] {
		return
	}
	seen[s] = true
	eachChild(s, func(c *openapi3.SchemaRef) {
		if c == nil {
			return
		}
		if c.Ref != "" && c.Value != nil {
			refs[refName(c.Ref)] = c.Value
		}
		collectRefs(c.Value, refs, seen)
	})
}

// eachChild calls fn with every subschema of s that OpenAPI 3.0 allows.
func eachChild(s *openapi3.Schema, fn func(*openapi3.SchemaRef)) {
	for _, l := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf, s.AllOf} {
		for _, c := range l {
			fn(c)
		}
	}
	fn(s.Not)
	fn(s.Items)
	for _, c := range s.Properties {
		fn(c)
	}
	fn(s.AdditionalProperties.Schema)
}

func refName(r string) string {
	return r[strings.LastIndexByte(r, '/')+1:]
}
