package server

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/specd-io/specd/schemas"
)

// reviewsGroup is an extra group as server/reviews makes one; its handler
// answers 201 to show the route reached it.
func reviewsGroup() ExtraGroup {
	return ExtraGroup{
		Group: "authorization.k8s.io", Version: "v1",
		Resources: []metav1.APIResource{{
			Name: "selfsubjectaccessreviews", SingularName: "selfsubjectaccessreview",
			Kind: "SelfSubjectAccessReview", Verbs: metav1.Verbs{"create"},
		}},
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(r.URL.Path))
		}),
	}
}

func newExtraServer(t *testing.T, extras ...ExtraGroup) *Server {
	t.Helper()
	reg := testRegistry()
	return New(Config{
		Registry: func() *schemas.Registry { return reg },
		Store:    newFakeStore(),
		Logger:   slog.New(slog.DiscardHandler),
		Extra:    extras,
	})
}

func TestExtraGroupDocuments(t *testing.T) {
	s := newExtraServer(t, reviewsGroup())
	tests := map[string]struct{ path, accept, want string }{
		"/apis/G": {path: "/apis/authorization.k8s.io", want: `{"kind":"APIGroup","apiVersion":"v1","name":"authorization.k8s.io",
			"versions":[{"groupVersion":"authorization.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"authorization.k8s.io/v1","version":"v1"}}`},
		"/apis/G/V": {path: "/apis/authorization.k8s.io/v1", want: `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"authorization.k8s.io/v1","resources":[
			{"name":"selfsubjectaccessreviews","singularName":"selfsubjectaccessreview","namespaced":false,"kind":"SelfSubjectAccessReview","verbs":["create"]}]}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := serve(t, s, request{path: tc.path})
			if w.Code != http.StatusOK {
				t.Fatalf("code %d: %s", w.Code, w.Body)
			}
			jsonEqual(t, "document", json.RawMessage(w.Body.Bytes()), tc.want)
		})
	}
}

func TestExtraGroupRouted(t *testing.T) {
	s := newExtraServer(t, reviewsGroup())
	w := serve(t, s, request{method: http.MethodPost, path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"})
	if w.Code != http.StatusCreated || w.Body.String() != "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews" {
		t.Fatalf("got %d %s", w.Code, w.Body)
	}
	if w := serve(t, s, request{path: "/apis/authorization.k8s.io/v2/x"}); w.Code != http.StatusNotFound {
		t.Fatalf("another version: got %d %s", w.Code, w.Body)
	}
}

// TestExtraGroupInClientDiscovery reads discovery as kubectl does
// (aggregated first) and finds both the extra kind and the schemas'.
func TestExtraGroupInClientDiscovery(t *testing.T) {
	srv := httptest.NewServer(newExtraServer(t, reviewsGroup()))
	defer srv.Close()
	dc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	groups, err := restmapper.GetAPIGroupResources(dc)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDiscoveryRESTMapper(groups)
	for _, gvk := range []schema.GroupVersionKind{
		{Group: "authorization.k8s.io", Version: "v1", Kind: "SelfSubjectAccessReview"},
		{Group: "shop.example.com", Version: "v1", Kind: "Widget"},
	} {
		if _, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
			t.Errorf("%s: %v", gvk, err)
		}
	}
}

func TestExtraGroupHidesSchemaGroup(t *testing.T) {
	shadow := reviewsGroup()
	shadow.Group = "shop.example.com"
	s := newExtraServer(t, shadow)
	w := serve(t, s, request{path: "/apis/shop.example.com/v1"})
	jsonEqual(t, "document", json.RawMessage(w.Body.Bytes()), `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"shop.example.com/v1","resources":[
		{"name":"selfsubjectaccessreviews","singularName":"selfsubjectaccessreview","namespaced":false,"kind":"SelfSubjectAccessReview","verbs":["create"]}]}`)
	w = serve(t, s, request{path: "/apis"})
	jsonEqual(t, "document", json.RawMessage(w.Body.Bytes()), `{"kind":"APIGroupList","apiVersion":"v1","groups":[
		{"name":"shop.example.com","versions":[{"groupVersion":"shop.example.com/v1","version":"v1"}],"preferredVersion":{"groupVersion":"shop.example.com/v1","version":"v1"}},
		{"name":"library.example.com","versions":[{"groupVersion":"library.example.com/v1","version":"v1"},{"groupVersion":"library.example.com/v1beta1","version":"v1beta1"}],
		 "preferredVersion":{"groupVersion":"library.example.com/v1","version":"v1"}}]}`)
}
