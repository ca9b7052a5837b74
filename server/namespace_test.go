package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
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
	url := namespaceServer(t)
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
		x.run(t, url)
	}
	fin, err := sjson.Set(terminating, "spec.finalizers", []string{})
	if err != nil {
		t.Fatal(err)
	}
	exchange{method: "PUT", path: ns + "/a/finalize", contentType: "application/json", code: 200, body: fin}.run(t, url)
	exchange{method: "GET", path: ns + "/a", code: 404, reason: metav1.StatusReasonNotFound}.run(t, url)
}

// TestNamespaceStatusStrategy is kube's namespace status strategy: a
// write through /status changes the status and the metadata (the e2e
// test "should apply changes to a namespace status" patches an annotation
// with a condition), never the spec; a write of the namespace itself
// never changes its status.
func TestNamespaceStatusStrategy(t *testing.T) {
	url := namespaceServer(t)
	const ns = "/api/v1/namespaces/s"
	exchange{method: "POST", path: "/api/v1/namespaces", contentType: "application/json", code: 201,
		body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"s"}}`}.run(t, url)
	patched := exchange{method: "PATCH", path: ns + "/status", contentType: "application/merge-patch+json", code: 200,
		body: `{"metadata":{"annotations":{"patched":"yes"}},"spec":{"finalizers":["example.com/x"]},` +
			`"status":{"conditions":[{"type":"StatusPatch","status":"True","reason":"E2E"}]}}`}.run(t, url)
	if got := gjson.Get(patched, `[metadata.annotations.patched,spec.finalizers,status.conditions.0.reason,status.phase]`).Raw; got != `["yes",["kubernetes"],"E2E","Active"]` {
		t.Errorf("a /status patch of an annotation, the spec and a condition: %s, want the annotation and the condition, not the spec", got)
	}
	updated := exchange{method: "PATCH", path: ns, contentType: "application/merge-patch+json", code: 200,
		body: `{"metadata":{"labels":{"l":"v"}},"status":{"phase":"Terminating","conditions":null}}`}.run(t, url)
	if got := gjson.Get(updated, `[metadata.labels.l,metadata.annotations.patched,status.conditions.0.reason,status.phase]`).Raw; got != `["v","yes","E2E","Active"]` {
		t.Errorf("a patch of the namespace's label and status: %s, want the label, the status as it was", got)
	}
}

// namespaceServer serves the example and built-in schemas with the
// namespace checks and strategy on etcd; it returns the server's URL.
func namespaceServer(t *testing.T) string {
	t.Helper()
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
		NamespaceCheck: life, Strategies: life.Strategies()})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go life.Run(ctx, store) // reads storage until its watch has listed: no cache here
	srv := httptest.NewServer(New(Config{Registry: func() *schemas.Registry { return reg }, Store: store, Logger: quiet}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestNamespaceDiscovery: /api/v1 lists namespaces with kube's verbs (no
// deletecollection, which is refused) and its finalize and status
// subresources, in kube's order; aggregated discovery and OpenAPI agree.
func TestNamespaceDiscovery(t *testing.T) {
	url := namespaceServer(t)
	var list metav1.APIResourceList
	if err := json.Unmarshal([]byte(getBody(t, url+"/api/v1", "")), &list); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range list.APIResources {
		if r.Name == "namespaces" || strings.HasPrefix(r.Name, "namespaces/") {
			got = append(got, r.Name+" "+r.Kind+" "+strings.Join(r.Verbs, ","))
		}
	}
	want := []string{"namespaces Namespace create,delete,get,list,patch,update,watch",
		"namespaces/finalize Namespace update", "namespaces/status Namespace get,patch,update"}
	if !slices.Equal(got, want) {
		t.Errorf("/api/v1 namespaces:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	agg := getBody(t, url+"/api", kubectlDiscoveryAccept)
	subs := gjson.Get(agg, `items.0.versions.0.resources.#(resource=="namespaces").subresources.#.subresource`).Raw
	if subs != `["finalize","status"]` {
		t.Errorf("aggregated namespaces subresources %s", subs)
	}
	st := exchange{method: "DELETE", path: "/api/v1/namespaces", code: 405, reason: metav1.StatusReasonMethodNotAllowed}.run(t, url)
	if msg := gjson.Get(st, "message").Str; msg != "the server does not allow this method on the requested resource" {
		t.Errorf("DELETE /api/v1/namespaces: %s", st)
	}
	doc := getBody(t, url+"/openapi/v3/api/v1", "")
	if !strings.Contains(doc, `"operationId":"replaceCoreV1NamespaceFinalize"`) || strings.Contains(doc, "deleteCoreV1CollectionNamespace\"") {
		t.Errorf("/openapi/v3/api/v1: want a replace of namespaces/finalize and no deletecollection of namespaces")
	}
}
