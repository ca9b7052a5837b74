package server

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/specd-io/specd/schemas"
)

const kubectlDiscoveryAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"

func TestDiscoveryDocuments(t *testing.T) {
	tests := map[string]struct {
		path, accept, contentType, want string
	}{
		"/api": {path: "/api", contentType: "application/json",
			want: `{"kind":"APIVersions","versions":[],"serverAddressByClientCIDRs":[]}`},
		"/api aggregated": {path: "/api", accept: kubectlDiscoveryAccept, contentType: contentTypeAggregated,
			want: `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[]}`},
		"/apis": {path: "/apis", contentType: "application/json", want: `{"kind":"APIGroupList","apiVersion":"v1","groups":[
			{"name":"library.example.com","versions":[{"groupVersion":"library.example.com/v1","version":"v1"},{"groupVersion":"library.example.com/v1beta1","version":"v1beta1"}],
			 "preferredVersion":{"groupVersion":"library.example.com/v1","version":"v1"}},
			{"name":"shop.example.com","versions":[{"groupVersion":"shop.example.com/v1","version":"v1"}],
			 "preferredVersion":{"groupVersion":"shop.example.com/v1","version":"v1"}}]}`},
		"/apis/G": {path: "/apis/shop.example.com", contentType: "application/json", want: `{"kind":"APIGroup","apiVersion":"v1","name":"shop.example.com",
			"versions":[{"groupVersion":"shop.example.com/v1","version":"v1"}],"preferredVersion":{"groupVersion":"shop.example.com/v1","version":"v1"}}`},
		"/apis/G/V": {path: "/apis/shop.example.com/v1", contentType: "application/json", want: `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"shop.example.com/v1","resources":[
			{"name":"books","singularName":"book","namespaced":true,"kind":"Book","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"storageVersionHash":"JBFt6FaaQEw="},
			{"name":"warehouses","singularName":"warehouse","namespaced":false,"kind":"Warehouse","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"storageVersionHash":"zbSzEaKgnew="},
			{"name":"widgets","singularName":"widget","namespaced":true,"kind":"Widget","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["wd"],"categories":["shop"],"storageVersionHash":"1eOuwF5L+ZU="},
			{"name":"widgets/status","singularName":"","namespaced":true,"kind":"Widget","verbs":["get","patch","update"]}]}`},
		"/apis aggregated": {path: "/apis", accept: kubectlDiscoveryAccept, contentType: contentTypeAggregated, want: `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[
			{"metadata":{"name":"library.example.com"},"versions":[
				{"version":"v1","resources":[{"resource":"books","responseKind":{"group":"library.example.com","version":"v1","kind":"Book"},"scope":"Namespaced","singularResource":"book","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["bk"]}],"freshness":"Current"},
				{"version":"v1beta1","resources":[{"resource":"books","responseKind":{"group":"library.example.com","version":"v1beta1","kind":"Book"},"scope":"Namespaced","singularResource":"book","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["bk"]}],"freshness":"Current"}]},
			{"metadata":{"name":"shop.example.com"},"versions":[{"version":"v1","resources":[
				{"resource":"books","responseKind":{"group":"shop.example.com","version":"v1","kind":"Book"},"scope":"Namespaced","singularResource":"book","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
				{"resource":"warehouses","responseKind":{"group":"shop.example.com","version":"v1","kind":"Warehouse"},"scope":"Cluster","singularResource":"warehouse","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
				{"resource":"widgets","responseKind":{"group":"shop.example.com","version":"v1","kind":"Widget"},"scope":"Namespaced","singularResource":"widget","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["wd"],"categories":["shop"],
				 "subresources":[{"subresource":"status","responseKind":{"group":"shop.example.com","version":"v1","kind":"Widget"},"verbs":["get","patch","update"]}]}],
				"freshness":"Current"}]}]}`},
		"/apis plain json first": {path: "/apis", accept: "application/json,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", contentType: "application/json"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := serve(t, newTestServer(t, newFakeStore()), request{path: tc.path, headers: map[string]string{"Accept": tc.accept}})
			if w.Code != http.StatusOK {
				t.Fatalf("code %d: %s", w.Code, w.Body)
			}
			if ct := w.Header().Get("Content-Type"); ct != tc.contentType {
				t.Errorf("Content-Type = %q, want %q", ct, tc.contentType)
			}
			if tc.want != "" {
				jsonEqual(t, "document", json.RawMessage(w.Body.Bytes()), tc.want)
			}
		})
	}
}

// TestDiscoveryTrailingSlash: each discovery document is also at its
// path with a trailing slash, as kube-apiserver serves /apis/ and
// /apis/GROUP/ (kube's e2e suite reads them).
func TestDiscoveryTrailingSlash(t *testing.T) {
	s := newTestServer(t, newFakeStore())
	for _, path := range []string{"/api", "/apis", "/apis/shop.example.com", "/apis/shop.example.com/v1"} {
		plain := serve(t, s, request{path: path})
		slash := serve(t, s, request{path: path + "/"})
		if slash.Code != http.StatusOK || slash.Body.String() != plain.Body.String() {
			t.Errorf("%s/: code %d, body\n%s\nwant the body of %s:\n%s", path, slash.Code, slash.Body, path, plain.Body)
		}
	}
}

func TestDiscoveryNotFound(t *testing.T) {
	for _, path := range []string{"/apis/nope.example.com", "/apis/shop.example.com/v2", "/api/v1",
		"/apis/nope.example.com/", "/api/v1/", "/openapi/v3/apis/shop.example.com/v2"} {
		w := serve(t, newTestServer(t, newFakeStore()), request{path: path})
		if w.Code != http.StatusNotFound {
			t.Errorf("%s: code %d", path, w.Code)
			continue
		}
		decodeStatus(t, w)
	}
}

// TestClientGoResolvesNames runs client-go's discovery and REST mapper, as
// kubectl does, in both discovery forms.
func TestClientGoResolvesNames(t *testing.T) {
	srv := httptest.NewServer(newTestServer(t, newFakeStore()))
	t.Cleanup(srv.Close)
	tests := map[string]schema.GroupVersionResource{
		"widgets":                           {Group: "shop.example.com", Version: "v1", Resource: "widgets"},
		"widget":                            {Group: "shop.example.com", Version: "v1", Resource: "widgets"},
		"wd":                                {Group: "shop.example.com", Version: "v1", Resource: "widgets"},
		"Widget":                            {Group: "shop.example.com", Version: "v1", Resource: "widgets"},
		"widgets.shop.example.com":          {Group: "shop.example.com", Version: "v1", Resource: "widgets"},
		"warehouse":                         {Group: "shop.example.com", Version: "v1", Resource: "warehouses"},
		"book.library.example.com":          {Group: "library.example.com", Version: "v1", Resource: "books"},
		"books.shop.example.com":            {Group: "shop.example.com", Version: "v1", Resource: "books"},
		"Book.shop.example.com":             {Group: "shop.example.com", Version: "v1", Resource: "books"},
		"bk":                                {Group: "library.example.com", Version: "v1", Resource: "books"},
		"books.v1beta1.library.example.com": {Group: "library.example.com", Version: "v1beta1", Resource: "books"},
	}
	for _, legacy := range []bool{false, true} {
		dc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		dc.UseLegacyDiscovery = legacy
		groups, err := restmapper.GetAPIGroupResources(dc)
		if err != nil {
			t.Fatalf("legacy=%v: %v", legacy, err)
		}
		mapper := restmapper.NewShortcutExpander(restmapper.NewDiscoveryRESTMapper(groups), dc, nil)
		for in, want := range tests {
			got, err := resolveLikeKubectl(mapper, in)
			if err != nil || got != want {
				t.Errorf("legacy=%v %q: got %v, %v; want %v", legacy, in, got, err, want)
			}
		}
		// "book" alone goes to the first group in discovery order, as in kube.
		if got, err := resolveLikeKubectl(mapper, "book"); err != nil || got.Group != "library.example.com" {
			t.Errorf("legacy=%v: book resolved to %v, %v", legacy, got, err)
		}
	}
}

// resolveLikeKubectl maps a resource argument as kubectl's builder does:
// resource.version.group, then resource.group, then Kind.version.group.
func resolveLikeKubectl(mapper meta.RESTMapper, arg string) (schema.GroupVersionResource, error) {
	gvr, gr := schema.ParseResourceArg(arg)
	var gvk schema.GroupVersionKind
	if gvr != nil {
		gvk, _ = mapper.KindFor(*gvr)
	}
	if gvk.Empty() {
		gvk, _ = mapper.KindFor(gr.WithVersion(""))
	}
	if !gvk.Empty() {
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return schema.GroupVersionResource{}, err
		}
		return m.Resource, nil
	}
	fullGVK, gk := schema.ParseKindArg(arg)
	if fullGVK != nil {
		if m, err := mapper.RESTMapping(fullGVK.GroupKind(), fullGVK.Version); err == nil {
			return m.Resource, nil
		}
	}
	m, err := mapper.RESTMapping(gk)
	if err != nil {
		return schema.GroupVersionResource{}, err
	}
	return m.Resource, nil
}

func TestDiscoveryFollowsRegistrySwaps(t *testing.T) {
	var current atomic.Pointer[schemas.Registry]
	current.Store(schemas.NewRegistry(nil))
	s := New(Config{Registry: current.Load, Store: newFakeStore(), Logger: slog.New(slog.DiscardHandler)})
	if w := serve(t, s, request{path: "/apis/shop.example.com/v1"}); w.Code != http.StatusNotFound {
		t.Fatalf("before: code %d", w.Code)
	}
	current.Store(testRegistry())
	if w := serve(t, s, request{path: "/apis/shop.example.com/v1"}); w.Code != http.StatusOK {
		t.Fatalf("after: code %d", w.Code)
	}
	if w := serve(t, s, request{path: "/openapi/v3/apis/shop.example.com/v1"}); w.Code != http.StatusOK {
		t.Fatalf("openapi after: code %d", w.Code)
	}
}
