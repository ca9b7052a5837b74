package migrate_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/converters"
	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/migrate"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// The Gizmo of these tests: v1 says colour where v2 says color, and only v2
// has a label, which an object stored in v1 keeps in the conversion
// bookkeeping. Either version can be the storage version; the other
// declares the rule.
const (
	gizmoV1 = `openapi: 3.0.3
info: {title: Gizmos, version: v1}
x-specd: {group: %[1]s}
components:
  schemas:
    Gizmo:
      type: object
      x-specd-resource:
        storage: %[2]t
%[3]s      properties:
        spec:
          type: object
          properties:
            size: {type: integer}
            colour: {type: string}
`
	gizmoV2 = `openapi: 3.0.3
info: {title: Gizmos, version: v2}
x-specd: {group: %[1]s}
components:
  schemas:
    Gizmo:
      type: object
      x-specd-resource:
        storage: %[2]t
%[3]s      properties:
        spec:
          type: object
          properties:
            size: {type: integer}
            color: {type: string}
            label: {type: string}
`
	v1Rules = "        conversion: {rules: [{rename: {from: spec.colour, to: spec.color}}]}\n"
	v2Rules = "        conversion: {rules: [{rename: {from: spec.color, to: spec.colour}}]}\n"
)

// gizmos is the Gizmo resource of group with storage version storage ("v1"
// or "v2"), and the converter of its registry.
type gizmos struct {
	group     string
	reg       *schemas.Registry
	r         *schemas.Resource
	v1, v2    *schemas.ResourceVersion
	converter converters.Converter
}

func loadGizmos(t *testing.T, group, storage string) *gizmos {
	t.Helper()
	r1, r2 := "", ""
	if storage == "v1" {
		r2 = v2Rules
	} else {
		r1 = v1Rules
	}
	fsys := fstest.MapFS{
		group + "/v1.yaml": {Data: fmt.Appendf(nil, gizmoV1, group, storage == "v1", r1)},
		group + "/v2.yaml": {Data: fmt.Appendf(nil, gizmoV2, group, storage == "v2", r2)},
	}
	reg, err := schemas.LoadFS(fsys)
	if err != nil {
		t.Fatal(err)
	}
	set, err := converters.NewSet(reg, converters.DeclaredRules)
	if err != nil {
		t.Fatal(err)
	}
	r := reg.Group(group).Resource("gizmos")
	return &gizmos{group: group, reg: reg, r: r, v1: r.Version("v1"), v2: r.Version("v2"), converter: set}
}

// store is a Store of g's registry on st under prefix: a specd started
// with these schemas.
func (g *gizmos) store(st storage.Storage, prefix string) *engine.Store {
	return engine.NewStore(st, engine.Options{Prefix: prefix, Now: func() time.Time { return testNow }, Converter: g.converter,
		Logger: slog.New(slog.DiscardHandler)})
}

func (g *gizmos) objectV1(name string, size int) string {
	return fmt.Sprintf(`{"apiVersion":"%s/v1","kind":"Gizmo","metadata":{"name":%q},"spec":{"size":%d,"colour":"red"}}`, g.group, name, size)
}

func (g *gizmos) objectV2(name string, size int, label string) string {
	return fmt.Sprintf(`{"apiVersion":"%s/v2","kind":"Gizmo","metadata":{"name":%q},"spec":{"size":%d,"color":"blue","label":%q}}`,
		g.group, name, size, label)
}

var groups atomic.Int64

// newGroup is a group name of its own for a test, so that its metric
// series are its own.
func newGroup() string { return fmt.Sprintf("m%d.example.com", groups.Add(1)) }

// storedVersions reads every stored Gizmo of prefix: apiVersion by key.
func storedVersions(t *testing.T, st storage.Storage, prefix, group string) map[string]gjson.Result {
	t.Helper()
	res, err := st.List(context.Background(), prefix+group+"/gizmos/", storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]gjson.Result{}
	for _, kv := range res.Items {
		out[kv.Key] = gjson.ParseBytes(kv.Value)
	}
	return out
}

func newPrefix() string { return fmt.Sprintf("/test/%d/", prefixes.Add(1)) }

// migrator is a Migrator of the Store of g's registry on st under
// prefix.
func (g *gizmos) migrator(st storage.Storage, prefix string) *migrate.Migrator {
	return migrate.New(g.store(st, prefix), slog.New(slog.DiscardHandler))
}
