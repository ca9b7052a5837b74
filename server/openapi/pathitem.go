package openapi

// What the OpenAPI 3.0 and Swagger 2.0 documents write alike: a path item
// of operations by method, and the fields of an operation but for its
// body and media types. Each document instantiates them with its own
// parameter, response and request body types (v3.go, v2.go).

// pathItem is one path: its operations by method and the parameters they
// share, of the document whose operation is O and parameter P.
type pathItem[O, P any] struct {
	Get        *O  `json:"get,omitempty"`
	Put        *O  `json:"put,omitempty"`
	Post       *O  `json:"post,omitempty"`
	Delete     *O  `json:"delete,omitempty"`
	Patch      *O  `json:"patch,omitempty"`
	Parameters []P `json:"parameters,omitempty"`
}

// operation is one operation of the document whose parameter is P,
// response R and request body B. Consumes and Produces are Swagger 2.0's,
// RequestBody is OpenAPI 3.0's: each document leaves the other's empty.
// The fields are in the order both documents write them (encoding/json
// keeps it), so that sharing them changed no document.
type operation[P, R, B any] struct {
	Tags        []string     `json:"tags,omitempty"`
	Description string       `json:"description,omitempty"`
	Consumes    []string     `json:"consumes,omitempty"`
	Produces    []string     `json:"produces,omitempty"`
	OperationID string       `json:"operationId"`
	Parameters  []P          `json:"parameters,omitempty"`
	RequestBody *B           `json:"requestBody,omitempty"`
	Responses   map[string]R `json:"responses"`
	Deprecated  bool         `json:"deprecated,omitempty"`
	Action      string       `json:"x-kubernetes-action"`
	GVK         oaGVK        `json:"x-kubernetes-group-version-kind"`
}

// newPathItem is p's path item, each of its operations written by op and
// each parameter by param.
func newPathItem[O, P any](p apiPath, op func(*apiOp) *O, param func(apiParam) P) *pathItem[O, P] {
	item := &pathItem[O, P]{Parameters: mapParams(p.params, param)}
	for _, o := range p.ops {
		item.set(o.method, op(o))
	}
	return item
}

func (item *pathItem[O, P]) set(method string, op *O) {
	switch method {
	case "get":
		item.Get = op
	case "put":
		item.Put = op
	case "post":
		item.Post = op
	case "delete":
		item.Delete = op
	case "patch":
		item.Patch = op
	}
}

// newOperation is op with what both documents say of it alike: all but
// its body, its media types and its responses, which are left to fill.
func newOperation[P, R, B any](op *apiOp, param func(apiParam) P) *operation[P, R, B] {
	return &operation[P, R, B]{
		Tags:        []string{op.tag},
		Description: op.description,
		OperationID: op.id,
		Parameters:  mapParams(op.params, param),
		Responses:   make(map[string]R, len(op.responses)+1),
		Deprecated:  op.deprecated,
		Action:      op.action,
		GVK:         op.gvk,
	}
}

// mapParams is params written by param; nil when there are none.
func mapParams[P any](params []apiParam, param func(apiParam) P) []P {
	if len(params) == 0 {
		return nil
	}
	out := make([]P, len(params))
	for i, p := range params {
		out[i] = param(p)
	}
	return out
}
