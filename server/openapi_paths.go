package server

import (
	"strings"

	"github.com/specd-io/specd/schemas"
)

// The OpenAPI v3 document of a group version, kept to what clients read:
// paths with their operations and parameters, the GVK extension kubectl
// uses to find a kind's PATCH operation, and the schemas. Plain structs,
// so the document is easy to extend and cheap to encode.

type oaDocument struct {
	OpenAPI    string                 `json:"openapi"`
	Info       oaInfo                 `json:"info"`
	Paths      map[string]*oaPathItem `json:"paths"`
	Components oaComponents           `json:"components"`
}

type oaInfo struct {
	Title   string `json:"title"`
	Version string `json:"version"`
}

type oaComponents struct {
	Schemas map[string]any `json:"schemas"`
}

type oaPathItem struct {
	Get        *oaOperation  `json:"get,omitempty"`
	Put        *oaOperation  `json:"put,omitempty"`
	Post       *oaOperation  `json:"post,omitempty"`
	Delete     *oaOperation  `json:"delete,omitempty"`
	Patch      *oaOperation  `json:"patch,omitempty"`
	Parameters []oaParameter `json:"parameters,omitempty"`
}

type oaOperation struct {
	Tags        []string              `json:"tags,omitempty"`
	Description string                `json:"description,omitempty"`
	OperationID string                `json:"operationId"`
	Parameters  []oaParameter         `json:"parameters,omitempty"`
	RequestBody *oaRequestBody        `json:"requestBody,omitempty"`
	Responses   map[string]oaResponse `json:"responses"`
	Action      string                `json:"x-kubernetes-action"`
	GVK         oaGVK                 `json:"x-kubernetes-group-version-kind"`
}

type oaGVK struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type oaParameter struct {
	Name        string   `json:"name"`
	In          string   `json:"in"`
	Description string   `json:"description,omitempty"`
	Required    bool     `json:"required,omitempty"`
	Schema      oaSchema `json:"schema"`
}

type oaSchema struct {
	Type string `json:"type,omitempty"`
	Ref  string `json:"$ref,omitempty"`
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
	Schema oaSchema `json:"schema"`
}

// Query parameters, as kube-apiserver documents them (shortened).
var (
	paramDryRun = oaParameter{Name: "dryRun", In: "query", Schema: oaSchema{Type: "string"},
		Description: "When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed"}
	paramFieldValidation = oaParameter{Name: "fieldValidation", In: "query", Schema: oaSchema{Type: "string"},
		Description: "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: Ignore, Warn (the default), Strict."}
	paramFieldManager = oaParameter{Name: "fieldManager", In: "query", Schema: oaSchema{Type: "string"},
		Description: "fieldManager is a name associated with the actor or entity that is making these changes."}
	paramLimit = oaParameter{Name: "limit", In: "query", Schema: oaSchema{Type: "integer"},
		Description: "limit is a maximum number of responses to return for a list call; continue with the continue token of the answer."}
	paramContinue = oaParameter{Name: "continue", In: "query", Schema: oaSchema{Type: "string"},
		Description: "The continue option should be set when retrieving more results from the server."}
	writeParams = []oaParameter{paramDryRun, paramFieldManager, paramFieldValidation}
)

func pathParam(name, desc string) oaParameter {
	return oaParameter{Name: name, In: "path", Required: true, Description: desc, Schema: oaSchema{Type: "string"}}
}

var (
	paramNamespace = pathParam("namespace", "object name and auth scope, such as for teams and projects")
	paramName      = pathParam("name", "name of the object")
)

// opNames builds operation ids and descriptions for one resource version.
type opNames struct {
	rv       *schemas.ResourceVersion
	prefix   string // "ShopExampleComV1"
	scope    string // "Namespaced" or ""
	tag      string // "shopExampleCom_v1"
	kindRef  string
	listRef  string
	gvk      oaGVK
	basePath string // /apis/G/V[/namespaces/{namespace}]/plural
}

func newOpNames(rv *schemas.ResourceVersion) opNames {
	res := rv.Resource
	n := opNames{
		rv:      rv,
		prefix:  camel(res.Group, true) + camel(rv.Version, true),
		tag:     camel(res.Group, false) + "_" + rv.Version,
		kindRef: "#/components/schemas/" + schemaName(res.Group, rv.Version, res.Kind),
		listRef: "#/components/schemas/" + schemaName(res.Group, rv.Version, res.ListKind),
		gvk:     oaGVK{Group: res.Group, Version: rv.Version, Kind: res.Kind},
	}
	n.basePath = "/apis/" + res.Group + "/" + rv.Version + "/" + res.Plural
	if res.Namespaced() {
		n.scope = "Namespaced"
		n.basePath = "/apis/" + res.Group + "/" + rv.Version + "/namespaces/{namespace}/" + res.Plural
	}
	return n
}

func (n opNames) op(action, verb, suffix, desc string) *oaOperation {
	return &oaOperation{
		Tags:        []string{n.tag},
		Description: desc,
		OperationID: verb + n.prefix + n.scope + n.rv.Resource.Kind + suffix,
		Responses:   map[string]oaResponse{"401": {Description: "Unauthorized"}},
		Action:      action,
		GVK:         n.gvk,
	}
}

// resourcePaths adds the paths of one resource version, with an operation
// for each verb specd serves.
func resourcePaths(paths map[string]*oaPathItem, rv *schemas.ResourceVersion) {
	n := newOpNames(rv)
	kind := rv.Resource.Kind
	var scopeParams []oaParameter
	if rv.Resource.Namespaced() {
		scopeParams = []oaParameter{paramNamespace}
	}
	collection := &oaPathItem{Parameters: scopeParams}
	item := &oaPathItem{Parameters: append(append([]oaParameter{}, scopeParams...), paramName)}
	if served("list") {
		collection.Get = n.op("list", "list", "", "list or watch objects of kind "+kind)
		collection.Get.Parameters = append(append([]oaParameter{paramContinue, paramLimit}, selectorParams...), watchParams...)
		collection.Get.Responses["200"] = jsonResponse("OK", n.listRef)
	}
	if served("create") {
		collection.Post = n.op("post", "create", "", "create a "+kind)
		collection.Post.Parameters = writeParams
		collection.Post.RequestBody = jsonBody(n.kindRef)
		collection.Post.Responses["201"] = jsonResponse("Created", n.kindRef)
	}
	if served("get") {
		item.Get = n.op("get", "read", "", "read the specified "+kind)
		item.Get.Responses["200"] = jsonResponse("OK", n.kindRef)
	}
	if served("update") {
		item.Put = n.op("put", "replace", "", "replace the specified "+kind)
		item.Put.Parameters = writeParams
		item.Put.RequestBody = jsonBody(n.kindRef)
		item.Put.Responses["200"] = jsonResponse("OK", n.kindRef)
	}
	if served("delete") {
		item.Delete = n.op("delete", "delete", "", "delete a "+kind)
		item.Delete.Parameters = deleteParams
		item.Delete.Responses["200"] = jsonResponse("OK", refStatus)
	}
	if served("deletecollection") {
		collection.Delete = n.deleteCollectionOp()
	}
	if served("patch") {
		item.Patch = n.patchOp("", "partially update the specified "+kind)
	}
	paths[n.basePath] = collection
	paths[n.basePath+"/{name}"] = item

	if rv.Resource.Namespaced() && served("list") {
		all := n
		all.scope = ""
		get := all.op("list", "list", "ForAllNamespaces", "list or watch objects of kind "+kind)
		get.Parameters = append(append([]oaParameter{paramContinue, paramLimit}, selectorParams...), watchParams...)
		get.Responses["200"] = jsonResponse("OK", n.listRef)
		paths["/apis/"+rv.Resource.Group+"/"+rv.Version+"/"+rv.Resource.Plural] = &oaPathItem{Get: get}
	}
	if rv.StatusSubresource {
		status := &oaPathItem{Parameters: item.Parameters}
		status.Get = n.op("get", "read", "Status", "read status of the specified "+kind)
		status.Get.Responses["200"] = jsonResponse("OK", n.kindRef)
		status.Put = n.op("put", "replace", "Status", "replace status of the specified "+kind)
		status.Put.Parameters = writeParams
		status.Put.RequestBody = jsonBody(n.kindRef)
		status.Put.Responses["200"] = jsonResponse("OK", n.kindRef)
		status.Patch = n.patchOp("Status", "partially update status of the specified "+kind)
		paths[n.basePath+"/{name}/status"] = status
	}
}

func served(verb string) bool {
	for _, v := range resourceVerbs {
		if v == verb {
			return true
		}
	}
	return false
}

func jsonContent(ref string) map[string]oaMedia {
	m := oaMedia{Schema: oaSchema{Ref: ref}}
	return map[string]oaMedia{contentTypeJSON: m, contentTypeYAML: m}
}

func jsonResponse(desc, ref string) oaResponse {
	return oaResponse{Description: desc, Content: jsonContent(ref)}
}

func jsonBody(ref string) *oaRequestBody {
	return &oaRequestBody{Content: jsonContent(ref), Required: true}
}

func patchBody() *oaRequestBody {
	m := oaMedia{Schema: oaSchema{Ref: refPatch}}
	return &oaRequestBody{Required: true, Content: map[string]oaMedia{
		"application/json-patch+json":  m,
		"application/merge-patch+json": m,
		"application/apply-patch+yaml": m,
	}}
}

// camel turns "shop.example.com" into "ShopExampleCom" (upper) or
// "shopExampleCom", as kube names operations and tags.
func camel(s string, upper bool) string {
	var b strings.Builder
	next := upper
	for _, r := range s {
		if r == '.' || r == '-' {
			next = true
			continue
		}
		if next && 'a' <= r && r <= 'z' {
			r -= 'a' - 'A'
		}
		next = false
		b.WriteRune(r)
	}
	return b.String()
}

// schemaName is the components.schemas name of a kind, as kube-apiserver
// names a CRD's: the group reversed, the version, the kind
// (com.example.shop.v1.Widget).
func schemaName(group, version, kind string) string {
	parts := strings.Split(group, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".") + "." + version + "." + kind
}
