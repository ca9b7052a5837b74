package server

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/schemas"
)

// verbsServer serves testRegistry with warehouses limited to get, list
// and watch (a read-only resource) and shop books to get and list.
func verbsServer(t *testing.T, store *fakeStore) *Server {
	t.Helper()
	reg := testRegistry()
	reg.Lookup("shop.example.com", "v1", "warehouses").Resource.Verbs = []string{"get", "list", "watch"}
	reg.Lookup("shop.example.com", "v1", "books").Resource.Verbs = []string{"get", "list"}
	return New(Config{
		Registry: func() *schemas.Registry { return reg },
		Store:    store,
		Logger:   slog.New(slog.DiscardHandler),
		Now:      func() time.Time { return testNow },
	})
}

// TestResourceVerbsDiscovery: discovery lists the verbs a resource's
// schema gives, in both documents; a resource without a list has all.
func TestResourceVerbsDiscovery(t *testing.T) {
	s := verbsServer(t, seeded(t))
	var list metav1.APIResourceList
	if err := json.Unmarshal(serve(t, s, request{path: "/apis/shop.example.com/v1"}).Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	var agg apidiscoveryv2.APIGroupDiscoveryList
	w := serve(t, s, request{path: "/apis", headers: map[string]string{"Accept": contentTypeAggregated}})
	if err := json.Unmarshal(w.Body.Bytes(), &agg); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"warehouses": {"get", "list", "watch"},
		"books":      {"get", "list"},
		"widgets":    resourceVerbs,
	}
	for _, r := range list.APIResources {
		if v, ok := want[r.Name]; ok && !slices.Equal(r.Verbs, v) {
			t.Errorf("/apis/shop.example.com/v1 %s: verbs %v, want %v", r.Name, r.Verbs, v)
		}
	}
	for _, g := range agg.Items {
		for _, v := range g.Versions {
			for _, r := range v.Resources {
				if g.Name == "shop.example.com" && !slices.Equal(r.Verbs, want[r.Resource]) {
					t.Errorf("aggregated %s: verbs %v, want %v", r.Resource, r.Verbs, want[r.Resource])
				}
			}
		}
	}
}

// TestResourceVerbsRefused: a verb the schema does not list is kube's 405
// for a route it never installed (the watch of a resource that lists
// names the verb, as kube's list handler does), and reaches no store;
// the listed verbs and the status subresource are served.
func TestResourceVerbsRefused(t *testing.T) {
	const wh = "/apis/shop.example.com/v1/warehouses"
	const generic = "the server does not allow this method on the requested resource"
	tests := map[string]struct {
		req     request
		code    int
		message string
	}{
		"create":           {request{method: http.MethodPost, path: wh, body: `{}`}, 405, generic},
		"update":           {request{method: http.MethodPut, path: wh + "/north", body: `{}`}, 405, generic},
		"patch":            {request{method: http.MethodPatch, path: wh + "/north", body: `{}`}, 405, generic},
		"delete":           {request{method: http.MethodDelete, path: wh + "/north"}, 405, generic},
		"deletecollection": {request{method: http.MethodDelete, path: wh}, 405, generic},
		"watch unlisted": {request{path: "/apis/shop.example.com/v1/namespaces/default/books?watch=true"}, 405,
			`watch is not supported on resources of kind "books.shop.example.com"`},
		"get":  {request{path: wh + "/north"}, 200, ""},
		"list": {request{path: wh}, 200, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			store := seeded(t)
			before := len(store.calls)
			w := serve(t, verbsServer(t, store), tc.req)
			if w.Code != tc.code {
				t.Fatalf("%s %s: %d, want %d: %s", tc.req.method, tc.req.path, w.Code, tc.code, w.Body)
			}
			if tc.code != http.StatusMethodNotAllowed {
				return
			}
			st := decodeStatus(t, w)
			if st.Reason != metav1.StatusReasonMethodNotAllowed || st.Message != tc.message {
				t.Errorf("%s %s: %s %q, want MethodNotAllowed %q", tc.req.method, tc.req.path, st.Reason, st.Message, tc.message)
			}
			if len(store.calls) != before {
				t.Errorf("a refused %s reached the store: %+v", name, store.last())
			}
		})
	}
}

// TestResourceVerbsOpenAPI: the OpenAPI document has an operation for a
// listed verb only, and no path left without operations.
func TestResourceVerbsOpenAPI(t *testing.T) {
	s := verbsServer(t, seeded(t))
	doc := serve(t, s, request{path: "/openapi/v3/apis/shop.example.com/v1"}).Body.String()
	paths := gjson.Get(doc, "paths")
	ops := func(p string) []string {
		var out []string
		paths.Get(gjson.Escape(p)).ForEach(func(k, _ gjson.Result) bool {
			if k.Str != "parameters" {
				out = append(out, k.Str)
			}
			return true
		})
		slices.Sort(out)
		return out
	}
	for p, want := range map[string][]string{
		"/apis/shop.example.com/v1/warehouses":                                   {"get"},
		"/apis/shop.example.com/v1/warehouses/{name}":                            {"get"},
		"/apis/shop.example.com/v1/namespaces/{namespace}/widgets":               {"delete", "get", "post"},
		"/apis/shop.example.com/v1/namespaces/{namespace}/widgets/{name}":        {"delete", "get", "patch", "put"},
		"/apis/shop.example.com/v1/namespaces/{namespace}/widgets/{name}/status": {"get", "patch", "put"},
	} {
		if got := ops(p); !slices.Equal(got, want) {
			t.Errorf("%s: operations %v, want %v", p, got, want)
		}
	}
	if strings.Contains(doc, "createShopExampleComV1Warehouse") {
		t.Error("the document has a create of warehouses, which do not serve it")
	}
}
