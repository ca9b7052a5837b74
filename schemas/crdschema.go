package schemas

import (
	"encoding/json"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// crdSchemaName is the name a CRD version's schema has in the OpenAPI
// document it is checked in.
const crdSchemaName = "crd"

// readCRDSchema reads a CRD version's schema.openAPIV3Schema (version at
// pointer at) and checks it as an OpenAPI schema, reporting problems at
// their place in the CRD. It returns nil when the schema cannot be used.
func readCRDSchema(d decoder, at string, vm map[string]any) *openapi3.Schema {
	sat := ptr(at, "schema")
	sch, ok := d.object(vm["schema"], sat, "openAPIV3Schema")
	if !ok {
		return nil
	}
	raw, present := sch["openAPIV3Schema"]
	if !present || raw == nil {
		d.probs.add(d.file, ptr(sat, "openAPIV3Schema"), "openAPIV3Schema is required: schemas are required")
		return nil
	}
	base := ptr(sat, "openAPIV3Schema")
	if !checkNoRefs(d, raw, base) {
		return nil
	}
	sub := &problems{}
	s := loadSchema(raw, sub)
	for _, p := range sub.list {
		p.File, p.Pointer = d.file, crdPointer(base, p.Pointer)
		d.probs.list = append(d.probs.list, p)
	}
	return s
}

// loadSchema loads raw as the only schema of an OpenAPI document, so that
// it gets kin-openapi's own checks; problems are at pointers in that
// document.
func loadSchema(raw any, probs *problems) *openapi3.Schema {
	const name = "schema.json"
	var t *openapi3.T
	if s, ok := schemaOf(raw); ok {
		t = schemaDocument(s)
	} else if t = decodeSchemaDocument(name, raw, probs); t == nil {
		return nil
	}
	if !checkDocument(name, t, probs) {
		return nil
	}
	ref := t.Components.Schemas[crdSchemaName]
	if ref == nil || ref.Value == nil {
		return nil
	}
	return ref.Value
}

// schemaDocument is the OpenAPI document whose only schema is s.
func schemaDocument(s *openapi3.Schema) *openapi3.T {
	return &openapi3.T{
		OpenAPI:    "3.0.3",
		Info:       &openapi3.Info{Title: crdSchemaName, Version: "v1"},
		Paths:      openapi3.NewPaths(),
		Components: &openapi3.Components{Schemas: openapi3.Schemas{crdSchemaName: {Value: s}}},
	}
}

// decodeSchemaDocument decodes the document whose only schema is raw
// with kin-openapi's loader, reporting what it cannot decode; nil when
// nothing could be.
func decodeSchemaDocument(name string, raw any, probs *problems) *openapi3.T {
	doc := map[string]any{
		"openapi":    "3.0.3",
		"info":       map[string]any{"title": crdSchemaName, "version": "v1"},
		"paths":      map[string]any{},
		"components": map[string]any{"schemas": map[string]any{crdSchemaName: raw}},
	}
	data, err := json.Marshal(doc)
	if err != nil {
		probs.add("", "", "cannot encode the schema: %v", err)
		return nil
	}
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	t, err := loader.LoadFromData(data)
	if err != nil {
		repaired := reportLoadError(name, data, err, probs)
		if repaired == nil {
			return nil
		}
		if t, err = loader.LoadFromData(repaired); err != nil {
			return nil
		}
	}
	return t
}

// crdPointer turns a pointer of loadSchema's document into one in the CRD.
func crdPointer(base, p string) string {
	prefix := ptr("/components/schemas", crdSchemaName)
	if rest, ok := strings.CutPrefix(p, prefix); ok {
		return base + rest
	}
	return base
}

// checkNoRefs reports every $ref in a CRD schema: kube-apiserver does not
// support them there.
func checkNoRefs(d decoder, v any, at string) bool {
	ok := true
	switch t := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(t) {
			if k == "$ref" {
				d.probs.add(d.file, ptr(at, k), "$ref is not supported in a CustomResourceDefinition")
				ok = false
				continue
			}
			if k == "properties" || k == "definitions" || k == "patternProperties" || k == "dependencies" {
				ok = checkNoRefsIn(d, t[k], ptr(at, k)) && ok
				continue
			}
			if isSchemaValuedKey(k) {
				ok = checkNoRefs(d, t[k], ptr(at, k)) && ok
			}
		}
	case []any:
		for i, item := range t {
			ok = checkNoRefs(d, item, ptr(at, index(i))) && ok
		}
	}
	return ok
}

// checkNoRefsIn checks every value of a map of schemas (properties).
func checkNoRefsIn(d decoder, v any, at string) bool {
	m, isMap := v.(map[string]any)
	if !isMap {
		return true
	}
	ok := true
	for _, k := range sortedKeys(m) {
		ok = checkNoRefs(d, m[k], ptr(at, k)) && ok
	}
	return ok
}

func isSchemaValuedKey(k string) bool {
	switch k {
	case "items", "additionalProperties", "not", "allOf", "anyOf", "oneOf", "additionalItems":
		return true
	}
	return false
}
