package server

import (
	"encoding/json"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/specd-io/specd/schemas"
)

const (
	metaPrefix         = "io.k8s.apimachinery.pkg.apis.meta.v1."
	refObjectMeta      = "#/components/schemas/" + metaPrefix + "ObjectMeta"
	refListMeta        = "#/components/schemas/" + metaPrefix + "ListMeta"
	refStatus          = "#/components/schemas/" + metaPrefix + "Status"
	refPatch           = "#/components/schemas/" + metaPrefix + "Patch"
	preserveUnknown    = "x-kubernetes-preserve-unknown-fields"
	descAPIVersion     = "APIVersion defines the versioned schema of this representation of an object."
	descKind           = "Kind is a string value representing the REST resource this object represents."
	descObjectMetadata = "Standard object's metadata."
)

// groupVersionOpenAPI builds the OpenAPI v3 document of a group version.
func groupVersionOpenAPI(gv *schemas.GroupVersion) *oaDocument {
	doc := &oaDocument{
		OpenAPI:    "3.0.0",
		Info:       oaInfo{Title: "specd " + gv.Group + "/" + gv.Version, Version: gv.Version},
		Paths:      make(map[string]*oaPathItem),
		Components: oaComponents{Schemas: metaSchemas()},
	}
	for _, rv := range gv.ServedResources() {
		resourcePaths(doc.Paths, rv)
		res := rv.Resource
		doc.Components.Schemas[schemaName(res.Group, rv.Version, res.Kind)] = kindSchema(rv, doc.Components.Schemas)
		doc.Components.Schemas[schemaName(res.Group, rv.Version, res.ListKind)] = listSchema(rv)
	}
	return doc
}

func obj(props map[string]any, extra ...any) map[string]any {
	m := map[string]any{"type": "object"}
	if props != nil {
		m["properties"] = props
	}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i].(string)] = extra[i+1]
	}
	return m
}

func typed(t string, extra ...any) map[string]any {
	m := map[string]any{"type": t}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i].(string)] = extra[i+1]
	}
	return m
}

func ref(r string) map[string]any { return map[string]any{"$ref": r} }

// metaSchemas are the meta.k8s.io/v1 types the paths refer to, reduced to
// their common fields.
func metaSchemas() map[string]any {
	str := typed("string")
	strMap := typed("object", "additionalProperties", str)
	loose := typed("object", preserveUnknown, true)
	return map[string]any{
		metaPrefix + "ObjectMeta": obj(map[string]any{
			"name": str, "generateName": str, "namespace": str, "uid": str,
			"resourceVersion": str, "generation": typed("integer", "format", "int64"),
			"creationTimestamp":          typed("string", "format", "date-time"),
			"deletionTimestamp":          typed("string", "format", "date-time"),
			"deletionGracePeriodSeconds": typed("integer", "format", "int64"),
			"labels":                     strMap, "annotations": strMap,
			"finalizers":      typed("array", "items", str),
			"ownerReferences": typed("array", "items", loose),
			"managedFields":   typed("array", "items", loose),
		}, "description", "ObjectMeta is metadata that all persisted resources must have."),
		metaPrefix + "ListMeta": obj(map[string]any{
			"resourceVersion": str, "continue": str,
			"remainingItemCount": typed("integer", "format", "int64"),
		}, "description", "ListMeta describes metadata that synthetic resources must have."),
		metaPrefix + "Status": obj(map[string]any{
			"apiVersion": str, "kind": str, "metadata": ref(refListMeta),
			"status": str, "message": str, "reason": str, "details": loose,
			"code": typed("integer", "format", "int32"),
		}, "description", "Status is a return value for calls that don't return other objects."),
		metaPrefix + "Patch": obj(nil,
			"description", "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body."),
	}
}

func listSchema(rv *schemas.ResourceVersion) map[string]any {
	res := rv.Resource
	return obj(map[string]any{
		"apiVersion": typed("string", "description", descAPIVersion),
		"kind":       typed("string", "description", descKind),
		"metadata":   ref(refListMeta),
		"items":      typed("array", "items", ref("#/components/schemas/"+schemaName(res.Group, rv.Version, res.Kind))),
	}, "required", []string{"items"}, "description", res.ListKind+" is a list of "+res.Kind,
		"x-kubernetes-group-version-kind", []oaGVK{{Group: res.Group, Version: rv.Version, Kind: res.ListKind}})
}

// kindSchema is a kind's schema as its file declares it, with apiVersion,
// kind and metadata added; schemas it refers to are added to comps.
func kindSchema(rv *schemas.ResourceVersion, comps map[string]any) map[string]any {
	res := rv.Resource
	var m map[string]any
	if rv.OpenAPI != nil {
		m = publishSchema(rv.OpenAPI, comps)
	}
	if m == nil {
		m = obj(nil, preserveUnknown, true)
	}
	props, _ := m["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		m["properties"] = props
	}
	props["apiVersion"] = typed("string", "description", descAPIVersion)
	props["kind"] = typed("string", "description", descKind)
	props["metadata"] = map[string]any{"description": descObjectMetadata, "allOf": []any{ref(refObjectMeta)}}
	m["type"] = "object"
	m["x-kubernetes-group-version-kind"] = []oaGVK{{Group: res.Group, Version: rv.Version, Kind: res.Kind}}
	return m
}

// publishSchema encodes a schema as generic JSON with every $ref pointing
// into components.schemas, and adds the schemas it refers to there (by the
// last segment of their reference). The registry's schema is not changed.
func publishSchema(s *openapi3.Schema, comps map[string]any) map[string]any {
	refs := make(map[string]*openapi3.Schema)
	collectRefs(s, refs, make(map[*openapi3.Schema]bool))
	descs := make(map[string]string, len(refs))
	for name, target := range refs {
		if target != nil && target.Description != "" {
			descs[name] = target.Description
		}
	}
	m := genericSchema(s, descs)
	for name, target := range refs {
		if _, taken := comps[name]; !taken && target != nil {
			if g := genericSchema(target, descs); g != nil {
				comps[name] = g
			}
		}
	}
	return m
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
		if c.Ref != "" {
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

// genericSchema encodes s with kin-openapi and rewrites its $refs.
func genericSchema(s *openapi3.Schema, descs map[string]string) map[string]any {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil
	}
	rewriteRefs(m, descs)
	return m
}

// rewriteRefs points every $ref into components.schemas. A property that
// is only a $ref becomes {description, allOf: [$ref]}, as kube publishes
// ObjectMeta, so that kubectl explain shows the target's description.
func rewriteRefs(v any, descs map[string]string) {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			if r, ok := c.(string); ok && k == "$ref" {
				t[k] = "#/components/schemas/" + refName(r)
				continue
			}
			if k == "properties" {
				if props, ok := c.(map[string]any); ok {
					for name, p := range props {
						props[name] = describedRef(p, descs)
					}
				}
			}
			rewriteRefs(c, descs)
		}
	case []any:
		for _, c := range t {
			rewriteRefs(c, descs)
		}
	}
}

func describedRef(p any, descs map[string]string) any {
	m, ok := p.(map[string]any)
	if !ok || len(m) != 1 {
		return p
	}
	r, ok := m["$ref"].(string)
	if !ok || descs[refName(r)] == "" {
		return p
	}
	return map[string]any{"description": descs[refName(r)], "allOf": []any{m}}
}
