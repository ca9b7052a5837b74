package openapi

import (
	"encoding/json"
	"maps"

	"github.com/specd-io/specd/schemas"
)

// The OpenAPI 3.0 document of a group version, as kube-apiserver publishes
// a custom resource's at /openapi/v3/apis/G/V. Plain structs: the document
// is encoded once per registry snapshot, and encoding/json sorts map keys,
// so equal registries give equal bytes (and hashes).

type oaDocument struct {
	OpenAPI    string                 `json:"openapi"`
	Info       oaInfo                 `json:"info"`
	Paths      map[string]*oaPathItem `json:"paths"`
	Components oaComponents           `json:"components"`
}

type oaInfo struct {
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Version     string `json:"version"`
}

type oaComponents struct {
	Schemas map[string]json.RawMessage `json:"schemas"`
}

type (
	oaPathItem  = pathItem[oaOperation, oaParameter]
	oaOperation = operation[oaParameter, oaResponse, oaRequestBody]
)

type oaGVK struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type oaParameter struct {
	Name        string        `json:"name"`
	In          string        `json:"in"`
	Description string        `json:"description,omitempty"`
	Required    bool          `json:"required,omitempty"`
	Schema      oaParamSchema `json:"schema"`
}

type oaParamSchema struct {
	Type string `json:"type"`
}

type oaRequestBody struct {
	Content  map[string]oaMedia `json:"content"`
	Required bool               `json:"required,omitempty"`
}

type oaResponse struct {
	Description string             `json:"description"`
	Content     map[string]oaMedia `json:"content,omitempty"`
}

type oaMedia struct {
	Schema map[string]any `json:"schema"`
}

// groupVersionOpenAPI builds the OpenAPI v3 document of a group version.
func groupVersionOpenAPI(gv *schemas.GroupVersion, verbs Verbs) *oaDocument {
	served := gv.ServedResources()
	doc := &oaDocument{
		OpenAPI:    "3.0.0",
		Info:       oaInfo{Title: schemas.APIVersion(gv.Group, gv.Version), Version: gv.Version, Description: "The " + schemas.APIVersion(gv.Group, gv.Version) + " API of specd."},
		Paths:      make(map[string]*oaPathItem, 4*len(served)),
		Components: oaComponents{Schemas: encodeSchemas(gvSchemas(gv.Group, gv.Version, served), metaEncoded(false, hasScale(served)))},
	}
	for _, rv := range served {
		for _, p := range resourcePaths(rv, verbs) {
			doc.Paths[p.path] = newPathItem(p, v3Operation, v3Param)
		}
	}
	return doc
}

// encodeSchemas encodes each schema of own once, beside the shared
// encoded ones: the meta schemas are encoded once per process, not in
// every document.
func encodeSchemas(own map[string]any, shared ...map[string]json.RawMessage) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(own)+16)
	for _, m := range shared {
		maps.Copy(out, m)
	}
	for name, s := range own {
		out[name] = mustJSON(s)
	}
	return out
}

func v3Operation(op *apiOp) *oaOperation {
	o := newOperation[oaParameter, oaResponse, oaRequestBody](op, v3Param)
	if b := op.body; b != nil {
		o.RequestBody = &oaRequestBody{Content: v3Content(b.mediaTypes, v3Ref(b.schema)), Required: b.required}
	}
	for _, r := range op.responses {
		o.Responses[r.code] = v3Response(r)
	}
	o.Responses[errorResponse.code] = v3Response(errorResponse)
	return o
}

func v3Response(r apiResponse) oaResponse {
	schema := v3Ref(r.schemas[0])
	if r.union != "" {
		schema = v3Ref(r.union)
	}
	// A watch (watch=true) answers a stream of WatchEvents, which the
	// document has but does not name here: generators would make every
	// list answer a union of a list and an event.
	return oaResponse{Description: r.desc, Content: v3Content(objectMediaTypes, schema)}
}

func v3Content(types []string, schema map[string]any) map[string]oaMedia {
	c := make(map[string]oaMedia, len(types)+1)
	for _, t := range types {
		c[t] = oaMedia{Schema: schema}
	}
	return c
}

func v3Ref(name string) map[string]any {
	return map[string]any{"$ref": v3RefPrefix + name}
}

func v3Param(p apiParam) oaParameter {
	return oaParameter{Name: p.name, In: p.in, Description: p.desc, Required: p.required, Schema: oaParamSchema{Type: p.typ}}
}
