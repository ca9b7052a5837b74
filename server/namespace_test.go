package server

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/namespace"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
)

// TestNamespaceLifecycleHTTP: through the routes, a create in a missing
// namespace is kube's 404, namespaces/NAME/status is the Namespace's
// status, a deleted namespace answers Terminating, and
// PUT on its finalize subresource (the only method it serves) empties
// spec.finalizers, which deletes it.
func TestNamespaceLifecycleHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd")
	}
	reg, _, err := schemas.NewLoader("../examples/schemas", builtin.Schemas()).Load()
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	life := namespace.New(namespace.Config{Registry: func() *schemas.Registry { return reg }, Logger: quiet})
	store := engine.NewStore(etcdstorage.New(etcdtest.Start(t)), engine.Options{Logger: quiet,
		NamespaceCheck: life.Check, Strategies: life.Strategies()})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go life.Run(ctx, store) // reads storage until its watch has listed: no cache here
	srv := httptest.NewServer(New(Config{Registry: func() *schemas.Registry { return reg }, Store: store, Logger: quiet}))
	t.Cleanup(srv.Close)
	const ns = "/api/v1/namespaces"
	var terminating string
	for _, x := range []exchange{
		{method: "POST", path: ns + "/nope/configmaps", contentType: "application/json", code: 404, reason: metav1.StatusReasonNotFound,
			body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`,
			check: func(t *testing.T, b string) {
				if got := gjson.Get(b, "[message,details.kind,details.name]").Raw; got != `["namespaces \"nope\" not found","namespaces","nope"]` {
					t.Errorf("404 %s", b)
				}
			}},
		{method: "POST", path: ns, contentType: "application/json", code: 201, body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}}`},
		{method: "GET", path: ns + "/a/status", code: 200},
		{method: "DELETE", path: ns + "/a", code: 200, check: func(t *testing.T, b string) {
			terminating = b
			if gjson.Get(b, "status.phase").Str != "Terminating" {
				t.Errorf("deleted namespace %s, want Terminating", b)
			}
		}},
		{method: "GET", path: ns + "/a/finalize", code: 405, reason: metav1.StatusReasonMethodNotAllowed},
		{method: "PUT", path: ns + "/a/other", contentType: "application/json", code: 404, body: `{}`},
	} {
		x.run(t, srv.URL)
	}
	fin, err := sjson.Set(terminating, "spec.finalizers", []string{})
	if err != nil {
		t.Fatal(err)
	}
	exchange{method: "PUT", path: ns + "/a/finalize", contentType: "application/json", code: 200, body: fin}.run(t, srv.URL)
	exchange{method: "GET", path: ns + "/a", code: 404, reason: metav1.StatusReasonNotFound}.run(t, srv.URL)
}
