package server

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	kin "github.com/getkin/kin-openapi/openapi3"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/openapi3"
	"k8s.io/client-go/rest"
	"k8s.io/kube-openapi/pkg/spec3"
	kubeproto "k8s.io/kube-openapi/pkg/util/proto"

	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/server/openapi"
)

// widgetSchemaFile declares the widget schema with a $ref, as an API author
// may write it.
const widgetSchemaFile = `
openapi: 3.0.0
info: {title: shop, version: v1}
paths: {}
components:
  schemas:
    Size: {type: integer, minimum: 1, description: How big the widget is.}
    Widget:
      type: object
      description: A widget for sale.
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
`

// registryWithSchemas is testRegistry with the widget's declared schema.
func registryWithSchemas(t *testing.T) *schemas.Registry {
	t.Helper()
	doc, err := kin.NewLoader().LoadFromData([]byte(widgetSchemaFile))
	if err != nil {
		t.Fatal(err)
	}
	reg := testRegistry()
	reg.Lookup("shop.example.com", "v1", "widgets").OpenAPI = doc.Components.Schemas["Widget"].Value
	return reg
}

func openapiTestServer(t *testing.T, reg *schemas.Registry) *Server {
	t.Helper()
	return New(Config{
		Registry: func() *schemas.Registry { return reg },
		Store:    newFakeStore(),
		Logger:   slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo})),
		Now:      func() time.Time { return testNow },
	})
}

// openapiIndex is /openapi/v3 as a client reads it.
type openapiIndex struct {
	Paths map[string]struct {
		ServerRelativeURL string `json:"serverRelativeURL"`
	} `json:"paths"`
}

func TestOpenAPIHTTP(t *testing.T) {
	s := openapiTestServer(t, registryWithSchemas(t))
	doc, _ := s.snapshot(t.Context()).openapi.GroupVersion("shop.example.com", "v1")
	path := "/openapi/v3/apis/shop.example.com/v1"
	etag := `"` + doc.Hash() + `"`
	tests := map[string]struct {
		path    string
		method  string
		headers map[string]string
		code    int
		want    map[string]string // headers
		body    bool              // the document is the body
	}{
		"a document": {path: path, code: 200, body: true,
			want: map[string]string{"Content-Type": "application/json", "Etag": etag, "Cache-Control": "no-cache, private", "Vary": "Accept"}},
		"with its hash": {path: openapi.HashedURL("shop.example.com", "v1", doc.Hash()), code: 200, body: true,
			want: map[string]string{"Cache-Control": "public, immutable", "Expires": "Sun, 21 Nov 2027 10:24:21 GMT", "Etag": etag}},
		"with an old hash": {path: path + "?hash=0123", code: 301,
			want: map[string]string{"Location": openapi.HashedURL("shop.example.com", "v1", doc.Hash())}},
		"not modified": {path: path, headers: map[string]string{"If-None-Match": etag}, code: 304,
			want: map[string]string{"Etag": etag}},
		"modified":       {path: path, headers: map[string]string{"If-None-Match": `"0123"`}, code: 200, body: true},
		"HEAD":           {path: path, method: http.MethodHead, code: 200},
		"JSON preferred": {path: path, headers: map[string]string{"Accept": "application/json, application/" + protoV3 + ";q=0.5"}, code: 200, body: true},
		"protobuf": {path: path, headers: map[string]string{"Accept": "application/" + protoV3Old}, code: 200,
			want: map[string]string{"Content-Type": "application/" + protoV3, "Etag": etag}},
		"an unsupported type": {path: path, headers: map[string]string{"Accept": "application/yaml"}, code: 406,
			want: map[string]string{"Content-Type": "application/json"}},
		"the v2 protobuf type":     {path: path, headers: map[string]string{"Accept": "application/" + protoV2}, code: 406},
		"an unknown group version": {path: "/openapi/v3/apis/shop.example.com/v9", code: 404},
		"the index": {path: "/openapi/v3", code: 200,
			want: map[string]string{"Content-Type": "application/json", "Cache-Control": "no-cache, private"}},
		"v2": {path: "/openapi/v2", code: 200, want: map[string]string{"Content-Type": "application/json", "Vary": "Accept"}},
		"v2 protobuf as client-go asks": {path: "/openapi/v2", headers: map[string]string{"Accept": "application/" + protoV2Old}, code: 200,
			want: map[string]string{"Content-Type": "application/" + protoV2}},
		"v2 not acceptable": {path: "/openapi/v2", headers: map[string]string{"Accept": "text/html"}, code: 406},
		"POST":              {path: path, method: http.MethodPost, code: 405},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := serve(t, s, request{method: tc.method, path: tc.path, headers: tc.headers})
			if w.Code != tc.code {
				t.Fatalf("code %d, want %d: %s", w.Code, tc.code, w.Body)
			}
			for k, v := range tc.want {
				if got := w.Header().Get(k); got != v {
					t.Errorf("%s: %q, want %q", k, got, v)
				}
			}
			if tc.body && w.Body.String() != string(doc.JSON()) {
				t.Errorf("the body is not the document")
			}
			if tc.code >= 400 {
				decodeStatus(t, w)
			}
		})
	}
	idx := serve(t, s, request{path: "/openapi/v3"})
	if w := serve(t, s, request{path: "/openapi/v3", headers: map[string]string{"If-None-Match": idx.Header().Get("Etag")}}); w.Code != 304 {
		t.Errorf("index If-None-Match: code %d", w.Code)
	}
}

// TestOpenAPIReload checks that a new registry snapshot publishes new
// documents, and that documents are built once per snapshot.
func TestOpenAPIReload(t *testing.T) {
	reg := testRegistry()
	s := openapiTestServer(t, nil)
	s.cfg.Registry = func() *schemas.Registry { return reg }
	before := serve(t, s, request{path: "/openapi/v3"}).Body.String()
	doc, _ := s.snapshot(t.Context()).openapi.GroupVersion("shop.example.com", "v1")
	again, _ := s.snapshot(t.Context()).openapi.GroupVersion("shop.example.com", "v1")
	if doc != again {
		t.Error("the documents of one snapshot are built twice")
	}
	v2 := serve(t, s, request{path: "/openapi/v2"}).Body.String()

	reg = registryWithSchemas(t) // the widget's schema changed
	after := serve(t, s, request{path: "/openapi/v3"}).Body.String()
	if after == before {
		t.Fatal("the index did not change")
	}
	var idx openapiIndex
	if err := json.Unmarshal([]byte(after), &idx); err != nil {
		t.Fatal(err)
	}
	w := serve(t, s, request{path: idx.Paths["apis/shop.example.com/v1"].ServerRelativeURL})
	if w.Code != 200 || !strings.Contains(w.Body.String(), "A widget for sale.") {
		t.Errorf("the new document is not served: %d", w.Code)
	}
	if v2 == serve(t, s, request{path: "/openapi/v2"}).Body.String() {
		t.Error("/openapi/v2 did not change")
	}
	// The old hash leads to the new document.
	var oldIdx openapiIndex
	if err := json.Unmarshal([]byte(before), &oldIdx); err != nil {
		t.Fatal(err)
	}
	if w := serve(t, s, request{path: oldIdx.Paths["apis/shop.example.com/v1"].ServerRelativeURL}); w.Code != http.StatusMovedPermanently ||
		w.Header().Get("Location") != idx.Paths["apis/shop.example.com/v1"].ServerRelativeURL {
		t.Errorf("old hash: %d %s", w.Code, w.Header().Get("Location"))
	}
}

// TestKubectlSeesServerSideFieldValidation reads the documents with
// client-go's OpenAPI v3 client and applies the check of cli-runtime's
// queryParamVerifierV3 (pkg/resource/query_param_verifier_v3.go), which
// decides whether kubectl --validate=strict leaves validation to the server.
func TestKubectlSeesServerSideFieldValidation(t *testing.T) {
	srv := httptest.NewServer(openapiTestServer(t, registryWithSchemas(t)))
	t.Cleanup(srv.Close)
	dc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	root := openapi3.NewRoot(dc.OpenAPIV3())
	for _, gvk := range []schema.GroupVersionKind{
		{Group: "shop.example.com", Version: "v1", Kind: "Widget"},
		{Group: "shop.example.com", Version: "v1", Kind: "Warehouse"},
		{Group: "shop.example.com", Version: "v1", Kind: "Book"},
		{Group: "library.example.com", Version: "v1beta1", Kind: "Book"},
	} {
		doc, err := root.GVSpec(gvk.GroupVersion())
		if err != nil {
			t.Fatalf("%v: %v", gvk, err)
		}
		if err := supportsFieldValidation(doc, gvk); err != "" {
			t.Errorf("%v: %s", gvk, err)
		}
	}
	// client-go's v2 client asks for protobuf only.
	v2, err := dc.OpenAPISchema()
	if err != nil {
		t.Fatalf("client-go's OpenAPISchema: %v", err)
	}
	models, err := kubeproto.NewOpenAPIData(v2)
	if err != nil {
		t.Fatal(err)
	}
	if models.LookupModel("com.example.shop.v1.Widget") == nil {
		t.Errorf("no Widget model in /openapi/v2: %v", models.ListModels())
	}
}

// supportsFieldValidation is cli-runtime's check: the first PATCH
// operation of the kind must have a fieldValidation query parameter.
func supportsFieldValidation(doc *spec3.OpenAPI, gvk schema.GroupVersionKind) string {
	if doc == nil || doc.Paths == nil {
		return "invalid document"
	}
	for _, path := range doc.Paths.Paths {
		if path == nil || path.Patch == nil {
			continue
		}
		var got map[string]string
		if err := path.Patch.Extensions.GetObject("x-kubernetes-group-version-kind", &got); err != nil ||
			got["group"] != gvk.Group || got["version"] != gvk.Version || got["kind"] != gvk.Kind {
			continue
		}
		for _, p := range path.Patch.Parameters {
			if p.Name == "fieldValidation" && p.In == "query" {
				return ""
			}
		}
		return "PATCH has no fieldValidation parameter"
	}
	return "no PATCH operation for the kind"
}
