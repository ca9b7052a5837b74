package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

// testNow is the clock of test servers; objects are created at testCreated.
var (
	testNow     = time.Date(2026, 11, 21, 10, 24, 21, 0, time.UTC)
	testCreated = "2026-11-21T10:19:21Z" // 5m before testNow
)

func resource(group, kind, plural, singular string, scope schemas.Scope, versions ...string) *schemas.Resource {
	res := &schemas.Resource{
		Group: group, Kind: kind, ListKind: kind + "List", Plural: plural, Singular: singular,
		Scope: scope, StorageVersion: versions[0],
	}
	for i, v := range versions {
		res.Versions = append(res.Versions, &schemas.ResourceVersion{Resource: res, Version: v, Storage: i == 0})
	}
	return res
}

// testRegistry serves two groups that both have a kind Book:
// shop.example.com/v1 (widgets with status and printer columns,
// cluster-scoped warehouses, books) and library.example.com v1 and v1beta1
// (books).
func testRegistry() *schemas.Registry {
	widgets := resource("shop.example.com", "Widget", "widgets", "widget", schemas.Namespaced, "v1")
	widgets.ShortNames = []string{"wd"}
	widgets.Categories = []string{"shop"}
	wv := widgets.Versions[0]
	wv.StatusSubresource = true
	wv.PrinterColumns = []schemas.PrinterColumn{
		{Name: "Size", Type: "integer", JSONPath: ".spec.size"},
		{Name: "Color", Type: "string", JSONPath: ".spec.color", Priority: 1},
	}
	warehouses := resource("shop.example.com", "Warehouse", "warehouses", "warehouse", schemas.Cluster, "v1")
	shopBooks := resource("shop.example.com", "Book", "books", "book", schemas.Namespaced, "v1")
	libBooks := resource("library.example.com", "Book", "books", "book", schemas.Namespaced, "v1", "v1beta1")
	libBooks.ShortNames = []string{"bk"}

	shop := &schemas.Group{Name: "shop.example.com", Versions: []*schemas.GroupVersion{{
		Group: "shop.example.com", Version: "v1",
		Resources: []*schemas.ResourceVersion{shopBooks.Versions[0], warehouses.Versions[0], wv},
	}}}
	library := &schemas.Group{Name: "library.example.com", Versions: []*schemas.GroupVersion{
		{Group: "library.example.com", Version: "v1", Resources: []*schemas.ResourceVersion{libBooks.Versions[0]}},
		{Group: "library.example.com", Version: "v1beta1", Resources: []*schemas.ResourceVersion{libBooks.Versions[1]}},
	}}
	return schemas.NewRegistry([]*schemas.Group{library, shop})
}

// call is one call the fake store received.
type call struct {
	verb      string
	resource  string // plural.group/version
	namespace string
	name      string
	body      string
	write     engine.WriteOptions
	del       engine.DeleteOptions
	list      engine.ListRequest
}

// fakeStore is an in-memory engine.Objects good enough for handler tests: it
// keeps objects by resource, namespace and name, and records every call.
type fakeStore struct {
	mu       sync.Mutex
	objects  map[string]string // key -> JSON
	calls    []call
	warnings []string
	err      error // returned by every call when set
	rv       int
}

func newFakeStore() *fakeStore { return &fakeStore{objects: map[string]string{}} }

func fsKey(rv *schemas.ResourceVersion, ns, name string) string {
	return rv.Resource.GroupResource() + "/" + ns + "/" + name
}

func (f *fakeStore) record(c call) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, c)
}

func (f *fakeStore) last() call {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		return call{}
	}
	return f.calls[len(f.calls)-1]
}

func gr(rv *schemas.ResourceVersion) schema.GroupResource {
	return schema.GroupResource{Group: rv.Resource.Group, Resource: rv.Resource.Plural}
}

func (f *fakeStore) put(rv *schemas.ResourceVersion, ns string, obj string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rv++
	obj, _ = sjson.Set(obj, "metadata.resourceVersion", fmt.Sprint(f.rv))
	if ns != "" {
		obj, _ = sjson.Set(obj, "metadata.namespace", ns)
	}
	if !gjson.Get(obj, "metadata.creationTimestamp").Exists() {
		obj, _ = sjson.Set(obj, "metadata.creationTimestamp", testCreated)
	}
	f.objects[fsKey(rv, ns, gjson.Get(obj, "metadata.name").Str)] = obj
	return obj
}

func (f *fakeStore) Create(_ context.Context, req engine.WriteRequest) (engine.Result, error) {
	rv, ns, body, opts := req.Version, req.Namespace, req.Body, req.Options
	name := gjson.GetBytes(body, "metadata.name").Str
	f.record(call{verb: "create", resource: rv.Resource.GroupResource() + "/" + rv.Version, namespace: ns, name: name, body: string(body), write: opts})
	if f.err != nil {
		return engine.Result{}, f.err
	}
	f.mu.Lock()
	_, exists := f.objects[fsKey(rv, ns, name)]
	f.mu.Unlock()
	if exists {
		return engine.Result{}, apierrors.NewAlreadyExists(gr(rv), name)
	}
	return engine.Result{Object: []byte(f.put(rv, ns, string(body))), Warnings: f.warnings}, nil
}

func (f *fakeStore) Get(_ context.Context, ref engine.Ref) ([]byte, error) {
	rv, ns, name := ref.Version, ref.Namespace, ref.Name
	f.record(call{verb: "get", resource: rv.Resource.GroupResource() + "/" + rv.Version, namespace: ns, name: name})
	if f.err != nil {
		return nil, f.err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	obj, ok := f.objects[fsKey(rv, ns, name)]
	if !ok {
		return nil, apierrors.NewNotFound(gr(rv), name)
	}
	return []byte(obj), nil
}

func (f *fakeStore) List(_ context.Context, ref engine.Ref, req engine.ListRequest) ([]byte, error) {
	rv, ns := ref.Version, ref.Namespace
	f.record(call{verb: "list", resource: rv.Resource.GroupResource() + "/" + rv.Version, namespace: ns, list: req})
	if f.err != nil {
		return nil, f.err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	prefix := rv.Resource.GroupResource() + "/" + ns
	if ns != "" {
		prefix += "/"
	}
	var keys []string
	for k := range f.objects {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	items := make([]string, 0, len(keys))
	for _, k := range keys {
		items = append(items, f.objects[k])
	}
	return []byte(fmt.Sprintf(`{"apiVersion":%q,"items":[%s],"kind":%q,"metadata":{"continue":"","resourceVersion":"%d"}}`,
		rv.APIVersion(), strings.Join(items, ","), rv.Resource.ListKind, f.rv)), nil
}

func (f *fakeStore) Update(_ context.Context, req engine.WriteRequest) (engine.Result, error) {
	rv, ns, name, body, opts := req.Version, req.Namespace, req.Name, req.Body, req.Options
	f.record(call{verb: "update", resource: rv.Resource.GroupResource() + "/" + rv.Version, namespace: ns, name: name, body: string(body), write: opts})
	if f.err != nil {
		return engine.Result{}, f.err
	}
	f.mu.Lock()
	_, exists := f.objects[fsKey(rv, ns, name)]
	f.mu.Unlock()
	if !exists {
		return engine.Result{}, apierrors.NewNotFound(gr(rv), name)
	}
	return engine.Result{Object: []byte(f.put(rv, ns, string(body))), Warnings: f.warnings}, nil
}

func (f *fakeStore) Delete(_ context.Context, ref engine.Ref, opts engine.DeleteOptions) (engine.Result, error) {
	rv, ns, name := ref.Version, ref.Namespace, ref.Name
	f.record(call{verb: "delete", resource: rv.Resource.GroupResource() + "/" + rv.Version, namespace: ns, name: name, del: opts})
	if f.err != nil {
		return engine.Result{}, f.err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	k := fsKey(rv, ns, name)
	if _, ok := f.objects[k]; !ok {
		return engine.Result{}, apierrors.NewNotFound(gr(rv), name)
	}
	delete(f.objects, k)
	st := metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess,
		Details: &metav1.StatusDetails{Name: name, Group: rv.Resource.Group, Kind: rv.Resource.Plural}}
	b, _ := json.Marshal(st)
	return engine.Result{Object: b, Warnings: f.warnings}, nil
}

// DeleteCollection is not the fake's: the engine's tests cover it.
func (f *fakeStore) DeleteCollection(_ context.Context, ref engine.Ref, _ engine.ListRequest, _ engine.DeleteOptions) ([]byte, error) {
	return nil, apierrors.NewMethodNotSupported(gr(ref.Version), "deletecollection")
}

// Watch is not the fake's: the engine's and the e2e tests cover it.
func (f *fakeStore) Watch(_ context.Context, ref engine.Ref, _ engine.WatchRequest) (*engine.Watch, error) {
	return nil, apierrors.NewMethodNotSupported(gr(ref.Version), "watch")
}

// Subresources: the fake serves none beyond status and scale.
func (f *fakeStore) Subresources(*schemas.Resource) []string { return nil }

// newTestServer returns a server on testRegistry and store, with a fixed
// clock and logs in the test output.
func newTestServer(t testing.TB, store engine.Objects) *Server {
	t.Helper()
	reg := testRegistry()
	return New(Config{
		Registry: func() *schemas.Registry { return reg },
		Store:    store,
		Logger:   slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:      func() time.Time { return testNow },
	})
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// request is one request of a table test.
type request struct {
	method  string
	path    string
	headers map[string]string
	body    string
}

func serve(t testing.TB, h http.Handler, req request) *httptest.ResponseRecorder {
	t.Helper()
	var body io.Reader
	if req.body != "" {
		body = strings.NewReader(req.body)
	}
	method := req.method
	if method == "" {
		method = http.MethodGet
	}
	r := httptest.NewRequest(method, req.path, body)
	for k, v := range req.headers {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// decodeStatus decodes a Status answer and checks its envelope.
func decodeStatus(t *testing.T, w *httptest.ResponseRecorder) metav1.Status {
	t.Helper()
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type = %q, want application/json; body %s", ct, w.Body)
	}
	var st metav1.Status
	if err := json.Unmarshal(w.Body.Bytes(), &st); err != nil {
		t.Fatalf("decoding Status: %v; body %s", err, w.Body)
	}
	if st.Kind != "Status" || st.APIVersion != "v1" {
		t.Fatalf("not a v1 Status: %s", w.Body)
	}
	if int(st.Code) != w.Code {
		t.Fatalf("Status code %d, HTTP code %d", st.Code, w.Code)
	}
	return st
}

const widgetW1 = `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w1","labels":{"tier":"gold"}},"spec":{"size":3,"color":"red","tags":["a"]}}`

// seeded returns a fake store holding w1 in default and a warehouse.
func seeded(t testing.TB) *fakeStore {
	t.Helper()
	f := newFakeStore()
	reg := testRegistry()
	f.put(reg.Lookup("shop.example.com", "v1", "widgets"), "default", widgetW1)
	f.put(reg.Lookup("shop.example.com", "v1", "warehouses"), "",
		`{"apiVersion":"shop.example.com/v1","kind":"Warehouse","metadata":{"name":"north"},"spec":{"city":"Oslo"}}`)
	return f
}
