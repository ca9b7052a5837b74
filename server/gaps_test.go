package server

import (
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/schemas"
)

// startEngine serves the example schemas and the pools of examples/scale from
// a real engine on an embedded etcd, and returns the server's URL.
func startEngine(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts etcd")
	}
	dir := t.TempDir()
	for _, f := range []string{"schemas/shop.example.com/v1.yaml", "schemas/shop.example.com/v2beta1.yaml", "scale/apps.example.com/v1.yaml"} {
		b, err := os.ReadFile(filepath.Join("..", "examples", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(filepath.Dir(f))+"-"+filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reg, err := schemas.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	store := engine.NewStore(etcdstorage.New(etcdtest.Start(t)), engine.Options{Logger: quiet})
	srv := httptest.NewServer(New(Config{Registry: func() *schemas.Registry { return reg }, Store: store, Logger: quiet}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func itemNames(body string) string {
	var out []string
	for _, n := range gjson.Get(body, "items.#.metadata.name").Array() {
		out = append(out, n.String())
	}
	return strings.Join(out, ",")
}

// TestDeleteCollectionPaged: DELETE on a collection with limit deletes one
// page and answers it with the token of the next, as kube-apiserver does.
func TestDeleteCollectionPaged(t *testing.T) {
	base := startEngine(t)
	const widgets = "/apis/shop.example.com/v1/namespaces/default/widgets"
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		exchange{method: "POST", path: widgets, contentType: "application/json", code: 201,
			body: fmt.Sprintf(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":%q},"spec":{"color":"red"}}`, name)}.run(t, base)
	}
	left := func(t *testing.T, want string) {
		t.Helper()
		got := exchange{method: "GET", path: widgets, code: 200}.run(t, base)
		if itemNames(got) != want {
			t.Fatalf("left %s, want %s", itemNames(got), want)
		}
	}
	first := exchange{method: "DELETE", path: widgets + "?limit=2", code: 200}.run(t, base)
	token := gjson.Get(first, "metadata.continue").Str
	if itemNames(first) != "a,b" || token == "" || gjson.Get(first, "metadata.remainingItemCount").Int() != 3 ||
		gjson.Get(first, "kind").Str != "WidgetList" {
		t.Fatalf("first page %s", first)
	}
	left(t, "c,d,e")
	bad := []struct {
		name, query string
		code        int
		reason      metav1.StatusReason
	}{
		{"bad token", "?limit=2&continue=nope", 400, metav1.StatusReasonBadRequest},
		{"bad limit", "?limit=-1", 400, metav1.StatusReasonBadRequest},
		{"token and resourceVersion", "?limit=2&resourceVersion=1&continue=" + token, 400, metav1.StatusReasonBadRequest},
	}
	for _, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			exchange{method: "DELETE", path: widgets + b.query, code: b.code, reason: b.reason}.run(t, base)
			left(t, "c,d,e")
		})
	}
	dry := exchange{method: "DELETE", path: widgets + "?limit=2&dryRun=All&continue=" + token, code: 200}.run(t, base)
	if itemNames(dry) != "c,d" {
		t.Fatalf("dry run page %s", dry)
	}
	left(t, "c,d,e")
	second := exchange{method: "DELETE", path: widgets + "?limit=2&continue=" + token, code: 200}.run(t, base)
	if itemNames(second) != "c,d" || gjson.Get(second, "metadata.continue").Str == "" {
		t.Fatalf("second page %s", second)
	}
	rest := exchange{method: "DELETE", path: widgets + "?continue=" + gjson.Get(second, "metadata.continue").Str, code: 200}.run(t, base)
	if itemNames(rest) != "e" || gjson.Get(rest, "metadata.continue").Str != "" {
		t.Fatalf("the rest %s", rest)
	}
	left(t, "")
}

// TestScaleServerSideApply: PATCH of /scale with
// application/apply-patch+yaml applies a Scale, with conflicts and force
// as kube-apiserver answers them.
func TestScaleServerSideApply(t *testing.T) {
	base := startEngine(t)
	const pools = "/apis/apps.example.com/v1/namespaces/default/pools"
	exchange{method: "POST", path: pools + "?fieldManager=creator", contentType: "application/json", code: 201,
		body: `{"apiVersion":"apps.example.com/v1","kind":"Pool","metadata":{"name":"p"},"spec":{"replicas":2,"selector":"app=p"}}`}.run(t, base)
	scale := func(replicas int) string {
		return fmt.Sprintf("apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: p\nspec:\n  replicas: %d\n", replicas)
	}
	const ssa = "application/apply-patch+yaml"
	conflict := exchange{method: "PATCH", path: pools + "/p/scale?fieldManager=hpa", contentType: ssa, body: scale(3),
		code: 409, reason: metav1.StatusReasonConflict}.run(t, base)
	if gjson.Get(conflict, "details.causes.0.reason").Str != "FieldManagerConflict" || gjson.Get(conflict, "details.causes.0.field").Str != ".spec.replicas" {
		t.Fatalf("conflict %s", conflict)
	}
	exchange{method: "PATCH", path: pools + "/p/scale", contentType: ssa, body: scale(3), code: 422, reason: metav1.StatusReasonInvalid}.run(t, base)
	got := exchange{method: "PATCH", path: pools + "/p/scale?fieldManager=hpa&force=true", contentType: ssa, body: scale(3), code: 200}.run(t, base)
	if gjson.Get(got, "kind").Str != "Scale" || gjson.Get(got, "spec.replicas").Int() != 3 || gjson.Get(got, "status.selector").Str != "app=p" {
		t.Fatalf("apply answered %s", got)
	}
	obj := exchange{method: "GET", path: pools + "/p", code: 200}.run(t, base)
	hpa := gjson.Get(obj, `metadata.managedFields.#(manager=="hpa")`)
	if gjson.Get(obj, "spec.replicas").Int() != 3 || hpa.Get("operation").Str != "Apply" || hpa.Get("subresource").Str != "scale" ||
		hpa.Get("apiVersion").Str != "apps.example.com/v1" || hpa.Get("fieldsV1").Raw != `{"f:spec":{"f:replicas":{}}}` {
		t.Fatalf("object after the apply: %s", obj)
	}
	exchange{method: "PATCH", path: pools + "/p/scale?fieldManager=hpa", contentType: ssa, code: 400, reason: metav1.StatusReasonBadRequest,
		body: "apiVersion: apps.example.com/v1\nkind: Pool\nmetadata:\n  name: p\nspec:\n  replicas: 4\n"}.run(t, base)
	exchange{method: "PATCH", path: pools + "/nope/scale?fieldManager=hpa", contentType: ssa, body: scale(4), code: 404, reason: metav1.StatusReasonNotFound}.run(t, base)
	// kubectl scale's merge patch still works, and takes the field over.
	exchange{method: "PATCH", path: pools + "/p/scale", contentType: "application/merge-patch+json", body: `{"spec":{"replicas":5}}`, code: 200}.run(t, base)
	exchange{method: "PATCH", path: pools + "/p/scale?fieldManager=hpa", contentType: ssa, body: scale(6), code: 409, reason: metav1.StatusReasonConflict}.run(t, base)
}
