package openapi

import (
	"slices"
	"strings"

	"github.com/specd-io/specd/schemas"
)

// opNames names the operations of one resource version as kube-apiserver
// names a custom resource's, so that generated clients get the method
// names they would get from Kubernetes: verb, group and version, scope,
// kind, subresource (readShopExampleComV1NamespacedWidgetStatus).
type opNames struct {
	rv       *schemas.ResourceVersion
	prefix   string // "ShopExampleComV1"
	scope    string // "Namespaced" or ""
	tag      string // "shopExampleCom_v1"
	kind     string // component names
	list     string
	deleted  string // what a delete answers: the object or a Status
	gvk      oaGVK
	basePath string // /apis/G/V[/namespaces/{namespace}]/plural
}

func newOpNames(rv *schemas.ResourceVersion) opNames {
	res := rv.Resource
	n := opNames{
		rv:      rv,
		prefix:  camel(opGroup(res.Group), true) + camel(rv.Version, true),
		tag:     camel(opGroup(res.Group), false) + "_" + rv.Version,
		kind:    schemaName(res.Group, rv.Version, res.Kind),
		list:    schemaName(res.Group, rv.Version, res.ListKind),
		deleted: deletedName(res.Group, rv.Version, res.Kind),
		gvk:     oaGVK{Group: res.Group, Version: rv.Version, Kind: res.Kind},
	}
	n.basePath = schemas.APIPath(res.Group, rv.Version) + "/" + res.Plural
	if res.Namespaced() {
		n.scope = "Namespaced"
		n.basePath = schemas.APIPath(res.Group, rv.Version) + "/namespaces/{namespace}/" + res.Plural
	}
	return n
}

// op is an operation of the resource with an error response; verb and
// suffix make its id.
func (n opNames) op(method, action, verb, suffix, desc string) *apiOp {
	return &apiOp{
		method:      method,
		id:          verb + n.prefix + n.scope + n.rv.Resource.Kind + suffix,
		description: desc,
		action:      action,
		gvk:         n.gvk,
		tag:         n.tag,
		deprecated:  n.rv.Deprecated,
	}
}

func (o *apiOp) answers(code, desc string, watch bool, schemas ...string) *apiOp {
	o.responses = append(o.responses, apiResponse{code: code, desc: desc, schemas: schemas, watch: watch})
	return o
}

// errorResponse is every operation's: a Status with the code and reason.
var errorResponse = apiResponse{code: "default", desc: "Error: a Status saying what went wrong, with the code and reason.", schemas: []string{nameStatus}}

// resourcePaths are the paths of one resource version, with an operation
// for each verb the routes serve.
func resourcePaths(rv *schemas.ResourceVersion, verbs Verbs) []apiPath {
	n := newOpNames(rv)
	var scope []apiParam
	if rv.Resource.Namespaced() {
		scope = []apiParam{paramNamespace}
	}
	named := append(slices.Clone(scope), pathParam("name", "name of the "+rv.Resource.Kind))
	main := verbs.mainVerbs(rv.Resource)
	paths := []apiPath{n.collectionPath(scope, main), n.itemPath(named, main)}
	if rv.Resource.Namespaced() && slices.Contains(main, "list") {
		all := n
		all.scope = ""
		paths = append(paths, apiPath{
			path: schemas.APIPath(rv.Resource.Group, rv.Version) + "/" + rv.Resource.Plural,
			ops:  []*apiOp{all.listOp("ForAllNamespaces")},
		})
	}
	for _, sub := range verbs.storeSubresources(rv.Resource) {
		paths = append(paths, n.subresourcePath(sub, named, []string{"update"}, n.kind))
	}
	if rv.StatusSubresource {
		paths = append(paths, n.subresourcePath("status", named, verbs.Status, n.kind))
	}
	if rv.Scale != nil {
		// Its operations carry the kind's GVK, as a custom resource's do
		// in kube-apiserver's documents; they answer a Scale.
		paths = append(paths, n.subresourcePath("scale", named, verbs.Scale, nameScale))
	}
	// A resource that serves some verbs only has no path for the others.
	return slices.DeleteFunc(paths, func(p apiPath) bool { return len(p.ops) == 0 })
}

// collectionPath is the path of the resource's collection: list, create
// and deletecollection.
func (n opNames) collectionPath(scope []apiParam, verbs []string) apiPath {
	kind := n.rv.Resource.Kind
	p := apiPath{path: n.basePath, params: scope}
	if slices.Contains(verbs, "list") {
		p.ops = append(p.ops, n.listOp(""))
	}
	if slices.Contains(verbs, "create") {
		op := n.op("post", "post", "create", "", "create "+article(kind)+" "+kind)
		op.params, op.body = writeParams, &apiBody{schema: n.kind, mediaTypes: objectMediaTypes, required: true}
		p.ops = append(p.ops, op.answers("201", "Created", false, n.kind))
	}
	if slices.Contains(verbs, "deletecollection") {
		op := n.op("delete", "deletecollection", "delete", "", "delete collection of "+kind)
		op.id = "delete" + n.prefix + "Collection" + n.scope + kind
		op.params, op.body = deleteCollectionParams, &apiBody{schema: nameDelete, mediaTypes: objectMediaTypes}
		p.ops = append(p.ops, op.answers("200", "OK: the objects deleted, as they were", false, n.list))
	}
	return p
}

// itemPath is the path of one object: get, update, delete and patch.
func (n opNames) itemPath(named []apiParam, verbs []string) apiPath {
	kind := n.rv.Resource.Kind
	p := apiPath{path: n.basePath + "/{name}", params: named}
	if slices.Contains(verbs, "get") {
		p.ops = append(p.ops, n.readOp("", "read the specified "+kind, n.kind))
	}
	if slices.Contains(verbs, "update") {
		p.ops = append(p.ops, n.replaceOp("", "replace the specified "+kind, n.kind))
	}
	if slices.Contains(verbs, "delete") {
		p.ops = append(p.ops, n.deleteOp())
	}
	if slices.Contains(verbs, "patch") {
		p.ops = append(p.ops, n.patchOp("", "partially update the specified "+kind, n.kind))
	}
	return p
}

// deleteOp answers the object while finalizers hold it, else a Status.
func (n opNames) deleteOp() *apiOp {
	kind := n.rv.Resource.Kind
	op := n.op("delete", "delete", "delete", "", "delete "+article(kind)+" "+kind)
	op.params, op.body = deleteParams, &apiBody{schema: nameDelete, mediaTypes: objectMediaTypes}
	op.answers("200", "OK: a Success Status when the object is gone, or the object while finalizers hold it", false, nameStatus, n.kind)
	op.responses[0].union = n.deleted
	return op
}

func (n opNames) listOp(suffix string) *apiOp {
	op := n.op("get", "list", "list", suffix, "list or watch objects of kind "+n.rv.Resource.Kind)
	op.params = listParams
	return op.answers("200", "OK", true, n.list)
}

func (n opNames) readOp(suffix, desc, schema string) *apiOp {
	return n.op("get", "get", "read", suffix, desc).answers("200", "OK", false, schema)
}

func (n opNames) replaceOp(suffix, desc, schema string) *apiOp {
	op := n.op("put", "put", "replace", suffix, desc)
	op.params, op.body = writeParams, &apiBody{schema: schema, mediaTypes: objectMediaTypes, required: true}
	return op.answers("200", "OK", false, schema)
}

// patchOp is a PATCH operation: kubectl learns that the server validates
// fields (--validate=strict) from the fieldValidation parameter of the
// first PATCH of a kind.
func (n opNames) patchOp(suffix, desc, schema string) *apiOp {
	op := n.op("patch", "patch", "patch", suffix, desc)
	op.params, op.body = patchParams, &apiBody{schema: namePatch, mediaTypes: patchTypes, required: true}
	op.answers("200", "OK", false, schema)
	if suffix == "" { // an apply creates a missing object, not a subresource
		op.answers("201", "Created (by a server-side apply)", false, schema)
	}
	return op
}

// subresourcePath is the path of the status or scale subresource, with
// the verbs it serves.
func (n opNames) subresourcePath(sub string, params []apiParam, verbs []string, schema string) apiPath {
	p := apiPath{path: n.basePath + "/{name}/" + sub, params: params}
	suffix := camel(sub, true)
	of := sub + " of the specified " + n.rv.Resource.Kind
	if slices.Contains(verbs, "get") {
		p.ops = append(p.ops, n.readOp(suffix, "read "+of, schema))
	}
	if slices.Contains(verbs, "update") {
		p.ops = append(p.ops, n.replaceOp(suffix, "replace "+of, schema))
	}
	if slices.Contains(verbs, "patch") {
		p.ops = append(p.ops, n.patchOp(suffix, "partially update "+of, schema))
	}
	return p
}

// deletedName names the schema of what a delete answers: one of the
// object (while finalizers hold it) and a Status (once it is gone). It
// is a named schema, not an inline oneOf, so that generators make one
// type of it.
func deletedName(group, version, kind string) string {
	return schemaName(group, version, kind+"OrStatus")
}

// article is "an" before a vowel, as kube-apiserver describes operations.
func article(noun string) string {
	if noun != "" && strings.ContainsRune("AEIOUaeiou", rune(noun[0])) {
		return "an"
	}
	return "a"
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

// opGroup is the group as operation ids and tags name it: "core" for
// the core group, as kube-apiserver's listCoreV1NamespacedConfigMap.
func opGroup(group string) string {
	if group == "" {
		return "core"
	}
	return group
}

// schemaName is the components.schemas name of a kind, as kube-apiserver
// names a CRD's: the group reversed, the version, the kind
// (com.example.shop.v1.Widget); a core kind is named as kube's own
// (io.k8s.api.core.v1.ConfigMap).
func schemaName(group, version, kind string) string {
	if group == "" {
		return "io.k8s.api.core." + version + "." + kind
	}
	parts := strings.Split(group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + "." + version + "." + kind
}
