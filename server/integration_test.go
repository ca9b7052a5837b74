package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/schemas"
)

// startSpecd serves the example schemas from a real engine on an embedded
// etcd, and returns the server's URL.
func startSpecd(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts etcd")
	}
	reg, err := schemas.Load("../examples/schemas")
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	cli := etcdtest.Start(t)
	store := engine.NewStore(etcdstorage.New(cli), engine.Options{Logger: quiet})
	srv := httptest.NewServer(New(Config{
		Registry: func() *schemas.Registry { return reg },
		Store:    store,
		Logger:   quiet,
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

type exchange struct {
	method, path, contentType, accept, body string
	code                                    int
	reason                                  metav1.StatusReason
	warning                                 string
	check                                   func(t *testing.T, body string)
}

func (x exchange) run(t *testing.T, base string) string {
	t.Helper()
	var body io.Reader
	if x.body != "" {
		body = strings.NewReader(x.body)
	}
	req, err := http.NewRequest(x.method, base+x.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if x.contentType != "" {
		req.Header.Set("Content-Type", x.contentType)
	}
	if x.accept != "" {
		req.Header.Set("Accept", x.accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != x.code {
		t.Fatalf("%s %s: code %d, want %d: %s", x.method, x.path, resp.StatusCode, x.code, b)
	}
	if x.reason != "" {
		if got := gjson.GetBytes(b, "reason").Str; got != string(x.reason) || gjson.GetBytes(b, "kind").Str != "Status" {
			t.Fatalf("%s %s: reason %q, want %q: %s", x.method, x.path, got, x.reason, b)
		}
	}
	if x.warning != "" && resp.Header.Get("Warning") != x.warning {
		t.Errorf("%s %s: Warning %q, want %q", x.method, x.path, resp.Header.Get("Warning"), x.warning)
	}
	if x.check != nil {
		x.check(t, string(b))
	}
	return string(b)
}

func TestWithEngineOnEtcd(t *testing.T) {
	base := startSpecd(t)
	const widgets = "/apis/shop.example.com/v1/namespaces/default/widgets"
	const w1 = `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w1","labels":{"tier":"gold"}},"spec":{"color":"red","size":3}}`
	var created string
	steps := []struct {
		name string
		x    exchange
	}{
		{"create", exchange{method: "POST", path: widgets, contentType: "application/json", body: w1, code: 201, check: func(t *testing.T, b string) {
			created = b
			if gjson.Get(b, "metadata.uid").Str == "" || gjson.Get(b, "metadata.resourceVersion").Str == "" {
				t.Errorf("created object lacks uid or resourceVersion: %s", b)
			}
		}}},
		{"create again", exchange{method: "POST", path: widgets, contentType: "application/json", body: w1, code: 409, reason: metav1.StatusReasonAlreadyExists}},
		{"create yaml", exchange{method: "POST", path: widgets, contentType: "application/yaml",
			body: "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: w2\nspec:\n  color: blue\n", code: 201}},
		{"unknown field, strict", exchange{method: "POST", path: widgets + "?fieldValidation=Strict", contentType: "application/json",
			body: `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"u1"},"spec":{"color":"red","bogus":1}}`, code: 400, reason: metav1.StatusReasonBadRequest}},
		{"unknown field, warn", exchange{method: "POST", path: widgets, contentType: "application/json",
			body: `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"u2"},"spec":{"color":"red","bogus":1}}`, code: 201,
			warning: `299 - "unknown field \"spec.bogus\""`}},
		{"dry run", exchange{method: "POST", path: widgets + "?dryRun=All", contentType: "application/json",
			body: `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"dry"},"spec":{"color":"red"}}`, code: 201}},
		{"dry run stored nothing", exchange{method: "GET", path: widgets + "/dry", code: 404, reason: metav1.StatusReasonNotFound}},
		{"invalid", exchange{method: "POST", path: widgets, contentType: "application/json",
			body: `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"bad"},"spec":{"color":"pink"}}`, code: 422, reason: metav1.StatusReasonInvalid}},
		{"get", exchange{method: "GET", path: widgets + "/w1", code: 200, check: func(t *testing.T, b string) {
			if b != created {
				t.Errorf("get answered\n%s\ncreate answered\n%s", b, created)
			}
		}}},
		{"table", exchange{method: "GET", path: widgets, accept: acceptTable, code: 200, check: func(t *testing.T, b string) {
			if gjson.Get(b, "kind").Str != "Table" || gjson.Get(b, "rows.#").Int() != 3 ||
				gjson.Get(b, "rows.0.cells.0").Str != "u2" || gjson.Get(b, "columnDefinitions.1.name").Str != "Color" {
				t.Errorf("table: %s", b)
			}
		}}},
		{"list page", exchange{method: "GET", path: widgets + "?limit=2", code: 200, check: func(t *testing.T, b string) {
			if gjson.Get(b, "items.#").Int() != 2 || gjson.Get(b, "metadata.continue").Str == "" {
				t.Errorf("page: %s", b)
			}
		}}},
		{"list all namespaces", exchange{method: "GET", path: "/apis/shop.example.com/v1/widgets", code: 200, check: func(t *testing.T, b string) {
			if gjson.Get(b, "kind").Str != "WidgetList" || gjson.Get(b, "items.#").Int() != 3 {
				t.Errorf("list: %s", b)
			}
		}}},
		{"delete", exchange{method: "DELETE", path: widgets + "/w2", code: 200}},
		{"delete again", exchange{method: "DELETE", path: widgets + "/w2", code: 404, reason: metav1.StatusReasonNotFound}},
		{"cluster-scoped", exchange{method: "POST", path: "/apis/shop.example.com/v1/warehouses", contentType: "application/json",
			body: `{"apiVersion":"shop.example.com/v1","kind":"Warehouse","metadata":{"name":"north"},"spec":{"address":{"city":"Oslo"}}}`, code: 201}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) { s.x.run(t, base) })
	}
	t.Run("update", func(t *testing.T) {
		body := strings.Replace(created, `"size":3`, `"size":4`, 1)
		got := exchange{method: "PUT", path: widgets + "/w1", contentType: "application/json", body: body, code: 200}.run(t, base)
		if gjson.Get(got, "spec.size").Int() != 4 {
			t.Errorf("updated: %s", got)
		}
		exchange{method: "PUT", path: widgets + "/w1", contentType: "application/json", body: body, code: 409, reason: metav1.StatusReasonConflict}.run(t, base)
	})
}

// TestDynamicClient drives the server with client-go's dynamic client, as
// controllers do, across two groups that both have a kind Book.
func TestDynamicClient(t *testing.T) {
	base := startSpecd(t)
	dc, err := dynamic.NewForConfig(&rest.Config{Host: base})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	books := map[schema.GroupVersionResource]map[string]any{
		{Group: "library.example.com", Version: "v1", Resource: "books"}: {"title": "Dune", "author": map[string]any{"name": "Frank Herbert"}},
		{Group: "shop.example.com", Version: "v1", Resource: "books"}:    {"title": "Dune"},
	}
	for gvr, spec := range books {
		t.Run(gvr.Group, func(t *testing.T) {
			c := dc.Resource(gvr).Namespace("default")
			obj := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": gvr.GroupVersion().String(), "kind": "Book",
				"metadata": map[string]any{"name": "dune"}, "spec": spec,
			}}
			if _, err := c.Create(ctx, obj, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
				t.Fatalf("create: %v", err)
			}
			got, err := c.Get(ctx, "dune", metav1.GetOptions{})
			if err != nil || got.GetUID() == "" {
				t.Fatalf("get: %v %v", got, err)
			}
			got.Object["spec"].(map[string]any)["title"] = "Dune Messiah"
			if _, err := c.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("update: %v", err)
			}
			list, err := c.List(ctx, metav1.ListOptions{})
			if err != nil || len(list.Items) != 1 {
				t.Fatalf("list: %v %v", list, err)
			}
			if err := c.Delete(ctx, "dune", metav1.DeleteOptions{}); err != nil {
				t.Fatalf("delete: %v", err)
			}
			if _, err := c.Get(ctx, "dune", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Fatalf("get after delete: %v", err)
			}
		})
	}
}
