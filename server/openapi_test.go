package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	kin "github.com/getkin/kin-openapi/openapi3"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/openapi3"
	"k8s.io/client-go/rest"
	"k8s.io/kube-openapi/pkg/spec3"

	"github.com/specd-io/specd/schemas"
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

func openapiServer(t *testing.T) *httptest.Server {
	t.Helper()
	reg := registryWithSchemas(t)
	s := newTestServer(t, newFakeStore())
	s.cfg.Registry = func() *schemas.Registry { return reg }
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv
}

func TestOpenAPIDocumentsAreValid(t *testing.T) {
	srv := openapiServer(t)
	var index openapiIndex
	getJSON(t, srv.URL+"/openapi/v3", &index)
	if len(index.Paths) != 3 {
		t.Fatalf("index: %+v", index)
	}
	for key, entry := range index.Paths {
		t.Run(key, func(t *testing.T) {
			if !strings.HasPrefix(entry.ServerRelativeURL, "/"+"openapi/v3/"+key+"?hash=") {
				t.Fatalf("serverRelativeURL = %q", entry.ServerRelativeURL)
			}
			resp, body := get(t, srv.URL+entry.ServerRelativeURL, nil)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("%d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			if resp.Header.Get("Cache-Control") != "public, immutable" {
				t.Errorf("Cache-Control = %q", resp.Header.Get("Cache-Control"))
			}
			loader := kin.NewLoader()
			doc, err := loader.LoadFromData(body)
			if err != nil {
				t.Fatal(err)
			}
			if err := doc.Validate(context.Background()); err != nil {
				t.Fatalf("invalid OpenAPI: %v", err)
			}
			etag := resp.Header.Get("Etag")
			resp, _ = get(t, srv.URL+entry.ServerRelativeURL, map[string]string{"If-None-Match": etag})
			if resp.StatusCode != http.StatusNotModified {
				t.Errorf("If-None-Match: code %d", resp.StatusCode)
			}
		})
	}
}

func TestOpenAPIPublishesDeclaredSchemas(t *testing.T) {
	srv := openapiServer(t)
	_, body := get(t, srv.URL+"/openapi/v3/apis/shop.example.com/v1", nil)
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	widget := string(doc.Components.Schemas["com.example.shop.v1.Widget"])
	for _, want := range []string{`"description":"A widget for sale."`, `"$ref":"#/components/schemas/Size"`,
		`"x-kubernetes-group-version-kind":[{"group":"shop.example.com","version":"v1","kind":"Widget"}]`,
		`"metadata":{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]`} {
		if !strings.Contains(widget, want) {
			t.Errorf("Widget schema lacks %s: %s", want, widget)
		}
	}
	if size := string(doc.Components.Schemas["Size"]); !strings.Contains(size, `"minimum":1`) {
		t.Errorf("Size schema = %s", size)
	}
	if doc.Components.Schemas["com.example.shop.v1.WarehouseList"] == nil {
		t.Error("no WarehouseList schema")
	}
}

// TestKubectlSeesServerSideFieldValidation reads the documents with
// client-go's OpenAPI v3 client and applies the check of cli-runtime's
// queryParamVerifierV3 (pkg/resource/query_param_verifier_v3.go), which
// decides whether kubectl --validate=strict leaves validation to the server.
func TestKubectlSeesServerSideFieldValidation(t *testing.T) {
	srv := openapiServer(t)
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

func get(t *testing.T, url string, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf strings.Builder
	if _, err := io.Copy(&buf, resp.Body); err != nil {
		t.Fatal(err)
	}
	return resp, []byte(buf.String())
}

func getJSON(t *testing.T, url string, into any) {
	t.Helper()
	resp, body := get(t, url, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, into); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}
