package openapi

import (
	"encoding/json"
	"maps"
	"strings"

	"github.com/specd-io/specd/schemas"
)

// The Swagger 2.0 document of everything specd serves (/openapi/v2), for
// the clients and generators that read only that one. It is written from
// the same operations and schemas as the v3 documents; schemas lose what
// Swagger 2.0 cannot say, as kube-apiserver's v2 of a custom resource does.

type swDocument struct {
	Swagger     string                     `json:"swagger"`
	Info        oaInfo                     `json:"info"`
	Paths       map[string]*swPathItem     `json:"paths"`
	Definitions map[string]json.RawMessage `json:"definitions"`
}

type (
	swPathItem  = pathItem[swOperation, swParameter]
	swOperation = operation[swParameter, swResponse, swNoRequestBody]
)

// swNoRequestBody: Swagger 2.0 sends a body as a parameter ("in": "body").
type swNoRequestBody struct{}

type swParameter struct {
	Name        string         `json:"name"`
	In          string         `json:"in"`
	Description string         `json:"description,omitempty"`
	Required    bool           `json:"required,omitempty"`
	Type        string         `json:"type,omitempty"`
	Schema      map[string]any `json:"schema,omitempty"`
}

type swResponse struct {
	Description string         `json:"description"`
	Schema      map[string]any `json:"schema,omitempty"`
}

const v2RefPrefix = "#/definitions/"

// swaggerDocument builds the Swagger 2.0 document of every served group
// version of reg.
func swaggerDocument(reg *schemas.Registry, verbs Verbs) *swDocument {
	doc := &swDocument{
		Swagger:     "2.0",
		Info:        oaInfo{Title: "specd", Description: "Every API group version specd serves.", Version: "v2"},
		Paths:       make(map[string]*swPathItem),
		Definitions: make(map[string]json.RawMessage),
	}
	withScale := false
	for _, g := range reg.Groups() {
		for _, gv := range g.ServedVersions() {
			served := gv.ServedResources()
			withScale = withScale || hasScale(served)
			comps := gvSchemas(gv.Group, gv.Version, served)
			for _, rv := range served {
				delete(comps, deletedName(gv.Group, gv.Version, rv.Resource.Kind)) // a oneOf
			}
			for name, s := range comps {
				doc.Definitions[name] = mustJSON(v2Definition(s.(map[string]any)))
			}
			for _, rv := range served {
				for _, p := range resourcePaths(rv, verbs) {
					doc.Paths[p.path] = newPathItem(p, v2Operation, v2Param)
				}
			}
		}
	}
	maps.Copy(doc.Definitions, metaEncoded(true, withScale))
	return doc
}

func v2Operation(op *apiOp) *swOperation {
	o := newOperation[swParameter, swResponse, swNoRequestBody](op, v2Param)
	o.Produces = objectMediaTypes
	if b := op.body; b != nil {
		o.Consumes = b.mediaTypes
		o.Parameters = append(o.Parameters, swParameter{Name: "body", In: "body", Required: b.required, Schema: v2Ref(b.schema)})
	}
	add := func(r apiResponse) {
		if r.watch {
			o.Produces = []string{mediaJSON, mediaYAML, mediaWatch}
		}
		// Swagger 2.0 has no oneOf: the first schema stands for all.
		o.Responses[r.code] = swResponse{Description: r.desc, Schema: v2Ref(r.schemas[0])}
	}
	for _, r := range op.responses {
		add(r)
	}
	add(errorResponse)
	return o
}

func v2Param(p apiParam) swParameter {
	return swParameter{Name: p.name, In: p.in, Description: p.desc, Required: p.required, Type: p.typ}
}

func v2Ref(name string) map[string]any {
	return map[string]any{"$ref": v2RefPrefix + name}
}

// v2Keywords are the schema keywords of Swagger 2.0 (besides x-
// extensions); anything else of OpenAPI 3.0 is dropped.
var v2Keywords = map[string]bool{
	"$ref": true, "format": true, "title": true, "description": true, "default": true,
	"multipleOf": true, "maximum": true, "exclusiveMaximum": true, "minimum": true, "exclusiveMinimum": true,
	"maxLength": true, "minLength": true, "pattern": true, "maxItems": true, "minItems": true, "uniqueItems": true,
	"maxProperties": true, "minProperties": true, "required": true, "enum": true, "additionalProperties": true,
	"type": true, "items": true, "allOf": true, "properties": true, "readOnly": true, "xml": true,
	"externalDocs": true, "example": true,
}

// v2Definition is the Swagger 2.0 definition of the v3 schema s. A kind
// whose whole object preserves unknown fields (a CRD without a schema) is
// {type: object} and its group-version-kind alone, as kube-apiserver
// publishes it in v2: kubectl's v2 validation would refuse every field
// but those a schema with properties names, apiVersion, kind and
// metadata included.
func v2Definition(s map[string]any) map[string]any {
	if s[extGVK] == nil || s[extPreserveUnknown] != true {
		return v2Schema(s)
	}
	return map[string]any{"type": "object", extGVK: s[extGVK]}
}

// v2Schema is a new Swagger 2.0 schema for the v3 schema s: refs point to
// definitions, and what 2.0 cannot say (oneOf, anyOf, not, nullable, ...)
// is dropped, the way kube-apiserver publishes a custom resource in v2
// (apiextensions-apiserver's ToStructuralOpenAPIV2), so that kubectl's
// OpenAPI v2 models can be built from it.
func v2Schema(s map[string]any) map[string]any {
	out := make(map[string]any, len(s))
	for k, v := range s {
		switch {
		case k == "$ref":
			out[k] = strings.Replace(v.(string), v3RefPrefix, v2RefPrefix, 1)
		case k == "properties":
			props, _ := v.(map[string]any)
			converted := make(map[string]any, len(props))
			for name, p := range props {
				converted[name] = v2Any(p)
			}
			out[k] = converted
		case k == "items" || k == "additionalProperties":
			out[k] = v2Any(v)
		case k == "allOf":
			l, _ := v.([]any)
			converted := make([]any, len(l))
			for i, c := range l {
				converted[i] = v2Any(c)
			}
			out[k] = converted
		case v2Keywords[k] || strings.HasPrefix(k, "x-"):
			out[k] = v
		}
	}
	v2Simplify(out, s)
	return out
}

func v2Any(v any) any {
	if m, ok := v.(map[string]any); ok {
		return v2Schema(m)
	}
	return v
}

// v2Simplify does what kubectl's v2 models need: a described $ref instead
// of allOf with one $ref, no type or children on nullable and
// preserve-unknown-fields schemas, no array without items, and no required
// nullable property.
func v2Simplify(out, in map[string]any) {
	if all, ok := out["allOf"].([]any); ok && len(all) == 1 && out["type"] == nil && out["properties"] == nil {
		if r, ok := all[0].(map[string]any); ok && len(r) == 1 && r["$ref"] != nil {
			delete(out, "allOf")
			out["$ref"] = r["$ref"]
		}
	}
	if in["nullable"] == true {
		delete(out, "type")
		delete(out, "items")
		delete(out, "properties")
	}
	if out[extPreserveUnknown] == true {
		delete(out, "items")
		delete(out, "properties")
		if out["type"] == "object" {
			delete(out, "type")
		}
	}
	if out["type"] == "array" && out["items"] == nil {
		delete(out, "type")
	}
	if props, ok := in["properties"].(map[string]any); ok {
		if req, ok := out["required"].([]any); ok {
			kept := make([]any, 0, len(req))
			for _, name := range req {
				if p, _ := props[name.(string)].(map[string]any); p == nil || p["nullable"] != true {
					kept = append(kept, name)
				}
			}
			out["required"] = kept
			if len(kept) == 0 {
				delete(out, "required")
			}
		}
	}
	if ap, ok := in["additionalProperties"].(map[string]any); ok && ap["nullable"] == true {
		delete(out, "required")
	}
}
