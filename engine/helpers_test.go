package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/tidwall/gjson"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/structural"
)

// testClient is one embedded etcd shared by the package's tests; each test
// gets its own key prefix.
var (
	testClient *clientv3.Client
	prefixes   atomic.Int64
)

func TestMain(m *testing.M) {
	os.Exit(etcdtest.Main(m, func(c *clientv3.Client) { testClient = c }))
}

// testNow is the clock of every test store: the time of the recorded
// exchanges.
var testNow = time.Date(2026, 11, 21, 10, 19, 21, 400_000_000, time.UTC)

// newStore returns a Store on the shared etcd under a fresh prefix.
func newStore(tb testing.TB) (*engine.Store, storage.Storage) {
	tb.Helper()
	st := etcdstorage.New(testClient)
	prefix := fmt.Sprintf("/test/%d/", prefixes.Add(1))
	return engine.NewStore(st, engine.Options{Keys: engine.Keys{Prefix: prefix}, Now: func() time.Time { return testNow }}), st
}

const widgetSchema = `{
  "type": "object",
  "properties": {
    "spec": {
      "type": "object",
      "required": ["size"],
      "properties": {
        "size": {"type": "integer", "minimum": 1},
        "color": {"type": "string", "enum": ["red", "green", "blue"], "default": "red"},
        "tags": {"type": "array", "items": {"type": "string"}}
      }
    },
    "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}
  }
}`

const warehouseSchema = `{
  "type": "object",
  "properties": {
    "spec": {"type": "object", "properties": {"city": {"type": "string"}}}
  }
}`

func compile(tb testing.TB, doc string) *structural.Schema {
	tb.Helper()
	var s openapi3.Schema
	if err := json.Unmarshal([]byte(doc), &s); err != nil {
		tb.Fatal(err)
	}
	c, errs := structural.Compile(&s)
	if len(errs) > 0 {
		tb.Fatalf("compile: %v", errs)
	}
	return c
}

// widgets is the namespaced Widget of the recorded exchanges, with a status
// subresource; warehouses is the cluster-scoped Warehouse.
func widgets(tb testing.TB) *schemas.ResourceVersion {
	r := &schemas.Resource{Group: "shop.example.com", Kind: "Widget", ListKind: "WidgetList", Plural: "widgets",
		Singular: "widget", Scope: schemas.Namespaced, StorageVersion: "v1"}
	rv := &schemas.ResourceVersion{Resource: r, Version: "v1", Storage: true, StatusSubresource: true, Schema: compile(tb, widgetSchema)}
	r.Versions = []*schemas.ResourceVersion{rv}
	return rv
}

func warehouses(tb testing.TB) *schemas.ResourceVersion {
	r := &schemas.Resource{Group: "shop.example.com", Kind: "Warehouse", ListKind: "WarehouseList", Plural: "warehouses",
		Singular: "warehouse", Scope: schemas.Cluster, StorageVersion: "v1"}
	rv := &schemas.ResourceVersion{Resource: r, Version: "v1", Storage: true, Schema: compile(tb, warehouseSchema)}
	r.Versions = []*schemas.ResourceVersion{rv}
	return rv
}

// exchange is one recorded kube-apiserver exchange.
type exchange struct {
	Request struct {
		Path string          `json:"path"`
		Body json.RawMessage `json:"body"`
	} `json:"request"`
	Response struct {
		Status  int               `json:"status"`
		Headers map[string]string `json:"headers"`
		Body    json.RawMessage   `json:"body"`
	} `json:"response"`
}

func loadExchange(tb testing.TB, n string) exchange {
	tb.Helper()
	// The recorded kube-apiserver exchanges are the repository's test
	// data, so a fresh clone needs nothing beside it.
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "k8s-reference", n+"-*.json"))
	if len(files) != 1 {
		tb.Fatalf("reference %s: found %v", n, files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		tb.Fatal(err)
	}
	var e exchange
	if err := json.Unmarshal(b, &e); err != nil {
		tb.Fatal(err)
	}
	return e
}

// requestBody is the exchange's request body as sent: a JSON string in the
// file stands for raw (possibly malformed) bytes.
func (e exchange) requestBody() []byte {
	var s string
	if json.Unmarshal(e.Request.Body, &s) == nil {
		return []byte(s)
	}
	return e.Request.Body
}

// statusOf returns err's Status as JSON, failing unless err is a
// StatusError.
func statusOf(tb testing.TB, err error) []byte {
	tb.Helper()
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		tb.Fatalf("error %v (%T) is not a StatusError", err, err)
	}
	st := se.ErrStatus
	// The server sets the Status's kind and apiVersion when it writes it.
	st.Kind, st.APIVersion = "Status", "v1"
	b, mErr := json.Marshal(st)
	if mErr != nil {
		tb.Fatal(mErr)
	}
	return b
}

// sameJSON fails unless got and want are the same JSON value.
func sameJSON(tb testing.TB, got, want []byte) {
	tb.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		tb.Fatalf("got is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		tb.Fatalf("want is not JSON: %v\n%s", err, want)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		tb.Fatalf("JSON differs\n got: %s\nwant: %s", gb, wb)
	}
}

// withoutServerFields drops what differs between runs (uid,
// resourceVersion) and what specd does not maintain yet (managedFields).
func withoutServerFields(tb testing.TB, obj []byte) []byte {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal(obj, &m); err != nil {
		tb.Fatal(err)
	}
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "uid")
		delete(md, "resourceVersion")
		delete(md, "managedFields")
	}
	b, _ := json.Marshal(m)
	return b
}

func mustCreate(tb testing.TB, s *engine.Store, rv *schemas.ResourceVersion, ns, body string) []byte {
	tb.Helper()
	res, err := s.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: ns}, Body: []byte(body), Options: engine.WriteOptions{}})
	if err != nil {
		tb.Fatalf("Create: %v", err)
	}
	return res.Object
}

func rvOf(obj []byte) string { return gjson.GetBytes(obj, "metadata.resourceVersion").String() }

func widget(name string, size int) string {
	return fmt.Sprintf(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":%q},"spec":{"size":%d}}`, name, size)
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
