package openapi

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	kin "github.com/getkin/kin-openapi/openapi3"
	openapiv2 "github.com/google/gnostic-models/openapiv2"
	openapiv3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"
	kubeproto "k8s.io/kube-openapi/pkg/util/proto"

	"github.com/specd-io/specd/internal/crdcorpus"
	"github.com/specd-io/specd/schemas"
)

// servedVerbs are the verbs of the server's routes.
var servedVerbs = Verbs{
	Resource: []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
	Status:   []string{"get", "patch", "update"},
	Scale:    []string{"get", "patch", "update"},
}

// widgetFiles declare a widget whose schema has a $ref, as an API author
// may write it, with a status subresource, and a cluster-scoped kind.
var widgetFiles = fstest.MapFS{
	"v1.yaml": {Data: []byte(`openapi: 3.0.0
info: {title: shop, version: v1}
x-specd: {group: shop.example.com}
paths: {}
components:
  schemas:
    Size: {type: integer, minimum: 1, description: How big the widget is.}
    Widget:
      type: object
      description: A widget for sale.
      x-specd-resource: {subresources: {status: {}}}
      properties:
        spec:
          type: object
          required: [size]
          properties:
            size: {$ref: '#/components/schemas/Size'}
            color: {type: string, enum: [red, green, blue], default: red}
        status:
          type: object
          properties:
            ready: {type: boolean}
    Warehouse:
      type: object
      x-specd-resource: {scope: Cluster}
`)},
}

// kitchenSinkFiles is a group whose schemas use what OpenAPI 3.0 has and
// Swagger 2.0 has not (nullable, oneOf, anyOf, not), specd's own
// extensions at every level, an embedded resource, a scale subresource, a
// schema named like a generated list, and a deprecated version.
var kitchenSinkFiles = fstest.MapFS{
	"v1.yaml": {Data: []byte(`openapi: 3.0.3
info: {title: sink, version: v1}
x-specd: {group: sink.example.com}
components:
  schemas:
    Pool:
      description: A pool of workers.
      type: object
      x-specd-resource:
        storage: true
        subresources:
          status: {}
          scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas, labelSelectorPath: .status.selector}
      x-specd-hooks: {validate: pool-policy}
      properties:
        spec:
          $ref: '#/components/schemas/PoolSpec'
        status:
          type: object
          properties:
            replicas: {type: integer}
            selector: {type: string}
    PoolSpec:
      description: What the pool should be.
      type: object
      required: [replicas]
      properties:
        replicas: {type: integer, minimum: 0, description: How many workers.}
        owner: {type: string, nullable: true, description: Who pays.}
        size:
          description: A count or a share.
          x-kubernetes-int-or-string: true
          anyOf: [{type: integer}, {type: string}]
        mode:
          type: string
          oneOf: [{enum: [fast]}, {enum: [slow]}]
        forbidden: {type: string, not: {enum: [x]}}
        template:
          type: object
          x-kubernetes-embedded-resource: true
          x-kubernetes-preserve-unknown-fields: true
        extra:
          type: object
          x-kubernetes-preserve-unknown-fields: true
        lists:
          type: array
          items: {$ref: '#/components/schemas/PoolList'}
        example:
          type: object
          default: {"$ref": "not a ref", "x-specd-kept": "data"}
          properties:
            "$ref": {type: string}
            "x-specd-kept": {type: string}
    PoolList:
      description: Not the generated list of pools, a list of something else.
      type: object
      properties:
        names: {type: array, items: {type: string}}
`)},
	"v1beta1.yaml": {Data: []byte(`openapi: 3.0.3
info: {title: sink, version: v1beta1}
x-specd: {group: sink.example.com}
components:
  schemas:
    Pool:
      type: object
      x-specd-resource: {deprecated: true}
      properties:
        spec: {type: object, properties: {replicas: {type: integer}}}
`)},
}

func loadFS(t *testing.T, fsys fstest.MapFS) *schemas.Registry {
	t.Helper()
	reg, err := schemas.LoadFS(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func loadDir(t *testing.T, dir string) *schemas.Registry {
	t.Helper()
	reg, err := schemas.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestOpenAPIDocumentsAreValid(t *testing.T) {
	tests := map[string]func(t *testing.T) *schemas.Registry{
		"widgets":      func(t *testing.T) *schemas.Registry { return loadFS(t, widgetFiles) },
		"kitchen sink": func(t *testing.T) *schemas.Registry { return loadFS(t, kitchenSinkFiles) },
		"example schemas": func(t *testing.T) *schemas.Registry {
			return loadDir(t, filepath.Join("..", "..", "examples", "schemas"))
		},
		"conversion example": func(t *testing.T) *schemas.Registry {
			return loadDir(t, filepath.Join("..", "..", "examples", "conversion"))
		},
	}
	for name, reg := range tests {
		t.Run(name, func(t *testing.T) {
			checkPublished(t, reg(t))
		})
	}
}

// TestOpenAPICRDCorpus publishes the schemas of every CRD of the corpus.
func TestOpenAPICRDCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("the CRD corpus is for the full run")
	}
	projects, err := filepath.Glob(filepath.Join(crdcorpus.Dir(t), "*", "crds"))
	if err != nil || len(projects) == 0 {
		t.Fatalf("no projects in the corpus (%v)", err)
	}
	for _, p := range projects {
		t.Run(filepath.Base(filepath.Dir(p)), func(t *testing.T) {
			dir := t.TempDir()
			crdcorpus.WriteSpecdFiles(t, dir, crdcorpus.Read(t, p))
			checkPublished(t, loadDir(t, dir))
		})
	}
}

// checkPublished reads every document of reg and checks it with the
// validators clients use: kin-openapi's (v3; v2 converted to v3), gnostic's
// (the protobuf form client-go reads) and kubectl's v2 models. It also
// checks what every document must hold for each served resource.
func checkPublished(t *testing.T, reg *schemas.Registry) {
	t.Helper()
	docs := New(reg, servedVerbs)
	var idx index
	if err := json.Unmarshal(docs.Index().JSON(), &idx); err != nil {
		t.Fatalf("index: %v", err)
	}
	var want []string
	for _, g := range reg.Groups() {
		for _, gv := range g.ServedVersions() {
			want = append(want, "apis/"+gv.Group+"/"+gv.Version)
		}
	}
	if got := slices.Sorted(maps.Keys(idx.Paths)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Fatalf("index paths %v, want %v", got, want)
	}
	for key, entry := range idx.Paths {
		gv := strings.SplitN(strings.TrimPrefix(key, "apis/"), "/", 2)
		doc, ok := docs.GroupVersion(gv[0], gv[1])
		if !ok || entry.ServerRelativeURL != HashedURL(gv[0], gv[1], doc.Hash()) {
			t.Fatalf("%s: no document at %s", key, entry.ServerRelativeURL)
		}
		body := doc.JSON()
		checkNoSpecdExtensions(t, key, body)
		loader := kin.NewLoader()
		parsed, err := loader.LoadFromData(body)
		if err != nil {
			t.Fatalf("%s: kin-openapi cannot load it: %v", key, err)
		}
		if err := parsed.Validate(context.Background()); err != nil {
			t.Fatalf("%s: invalid under kin-openapi: %v", key, err)
		}
		if _, err := openapiv3.ParseDocument(body); err != nil {
			t.Fatalf("%s: invalid under gnostic: %v", key, err)
		}
		checkResourceOperations(t, key, parsed, reg.GroupVersion(gv[0], gv[1]).ServedResources())
	}

	v2 := docs.Swagger()
	checkNoSpecdExtensions(t, "/openapi/v2", v2.JSON())
	checkSwagger(t, v2.JSON())
	pb, err := v2.Protobuf()
	if err != nil {
		t.Fatalf("/openapi/v2 as protobuf: %v", err)
	}
	var gnostic openapiv2.Document
	if err := proto.Unmarshal(pb, &gnostic); err != nil {
		t.Fatalf("/openapi/v2 as protobuf: %v", err)
	}
	if _, err := kubeproto.NewOpenAPIData(&gnostic); err != nil {
		t.Fatalf("/openapi/v2: kubectl's models cannot be built: %v", err)
	}
}

// checkSwagger validates a Swagger 2.0 document with gnostic, and with
// kin-openapi once converted to OpenAPI 3.
func checkSwagger(t *testing.T, body []byte) {
	t.Helper()
	if _, err := openapiv2.ParseDocument(body); err != nil {
		t.Fatalf("/openapi/v2: invalid under gnostic: %v", err)
	}
	var doc2 openapi2.T
	if err := json.Unmarshal(body, &doc2); err != nil {
		t.Fatalf("/openapi/v2: kin-openapi cannot read it: %v", err)
	}
	doc3, err := openapi2conv.ToV3(&doc2)
	if err != nil {
		t.Fatalf("/openapi/v2: kin-openapi cannot convert it: %v", err)
	}
	if err := doc3.Validate(context.Background()); err != nil {
		t.Fatalf("/openapi/v2: invalid under kin-openapi (as v3): %v", err)
	}
}

func checkNoSpecdExtensions(t *testing.T, what string, body []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if strings.HasPrefix(k, "x-specd") && !strings.HasSuffix(at, "/properties") && !strings.Contains(at, "/default") {
					t.Errorf("%s: %s/%s is published", what, at, k)
				}
				walk(c, at+"/"+k)
			}
		case []any:
			for i, c := range x {
				walk(c, fmt.Sprintf("%s/%d", at, i))
			}
		}
	}
	walk(v, "")
}

// checkResourceOperations checks that the document has, for each served
// resource, the operations the routes serve, with kube's ids, actions and
// GVKs, and its kind and list schemas.
func checkResourceOperations(t *testing.T, key string, doc *kin.T, served []*schemas.ResourceVersion) {
	t.Helper()
	for _, rv := range served {
		n := newOpNames(rv)
		want := map[string]string{ // path method -> operationId
			n.basePath + " GET":               "list" + n.prefix + n.scope + rv.Resource.Kind,
			n.basePath + " POST":              "create" + n.prefix + n.scope + rv.Resource.Kind,
			n.basePath + " DELETE":            "delete" + n.prefix + "Collection" + n.scope + rv.Resource.Kind,
			n.basePath + "/{name} GET":        "read" + n.prefix + n.scope + rv.Resource.Kind,
			n.basePath + "/{name} PUT":        "replace" + n.prefix + n.scope + rv.Resource.Kind,
			n.basePath + "/{name} PATCH":      "patch" + n.prefix + n.scope + rv.Resource.Kind,
			n.basePath + "/{name} DELETE":     "delete" + n.prefix + n.scope + rv.Resource.Kind,
			n.basePath + "/{name}/status GET": "",
		}
		if rv.StatusSubresource {
			want[n.basePath+"/{name}/status GET"] = "read" + n.prefix + n.scope + rv.Resource.Kind + "Status"
			want[n.basePath+"/{name}/status PUT"] = "replace" + n.prefix + n.scope + rv.Resource.Kind + "Status"
			want[n.basePath+"/{name}/status PATCH"] = "patch" + n.prefix + n.scope + rv.Resource.Kind + "Status"
		}
		if rv.Scale != nil {
			want[n.basePath+"/{name}/scale GET"] = "read" + n.prefix + n.scope + rv.Resource.Kind + "Scale"
			want[n.basePath+"/{name}/scale PUT"] = "replace" + n.prefix + n.scope + rv.Resource.Kind + "Scale"
			want[n.basePath+"/{name}/scale PATCH"] = "patch" + n.prefix + n.scope + rv.Resource.Kind + "Scale"
		}
		for pm, id := range want {
			path, method, _ := strings.Cut(pm, " ")
			item := doc.Paths.Value(path)
			var op *kin.Operation
			if item != nil {
				op = item.GetOperation(method)
			}
			switch {
			case id == "" && op != nil:
				t.Errorf("%s: %s %s is published, but not served", key, method, path)
			case id != "" && op == nil:
				t.Errorf("%s: no %s %s", key, method, path)
			case id != "" && op.OperationID != id:
				t.Errorf("%s: %s %s: operationId %s, want %s", key, method, path, op.OperationID, id)
			case id != "" && op.Responses.Default() == nil:
				t.Errorf("%s: %s %s has no error response", key, method, path)
			case id != "" && op.Deprecated != rv.Deprecated:
				t.Errorf("%s: %s %s: deprecated %v", key, method, path, op.Deprecated)
			}
		}
		for _, kind := range []string{rv.Resource.Kind, rv.Resource.ListKind} {
			s := doc.Components.Schemas[schemaName(rv.Resource.Group, rv.Version, kind)]
			if s == nil || s.Value.Extensions[extGVK] == nil {
				t.Errorf("%s: no schema with the GVK of %s", key, kind)
			}
		}
	}
}
