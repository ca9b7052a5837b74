package gizmotest

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/converters"
	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/schemas"
)

// Gizmos is the Gizmo resource of a group with one storage version, and
// the converter of its registry.
type Gizmos struct {
	Group     string
	Registry  *schemas.Registry
	Resource  *schemas.Resource
	V1, V2    *schemas.ResourceVersion
	Converter converters.Converter
}

// Load compiles testschemas.Gizmos of group with storage ("v1" or "v2")
// as the storage version.
func Load(t testing.TB, group, storage string) *Gizmos {
	t.Helper()
	reg, err := schemas.LoadFS(testschemas.Gizmos(group, storage))
	if err != nil {
		t.Fatal(err)
	}
	set, err := converters.NewSet(reg, converters.DeclaredRules)
	if err != nil {
		t.Fatal(err)
	}
	r := reg.Group(group).Resource("gizmos")
	return &Gizmos{Group: group, Registry: reg, Resource: r, V1: r.Version("v1"), V2: r.Version("v2"), Converter: set}
}

// Store is a Store of g's registry on st under prefix, its clock stopped
// at now: a specd started with these schemas.
func (g *Gizmos) Store(st storage.Storage, prefix string, now time.Time) *engine.Store {
	return engine.NewStore(st, engine.Options{Keys: engine.Keys{Prefix: prefix}, Now: func() time.Time { return now }, Converter: g.Converter,
		Logger: slog.New(slog.DiscardHandler)})
}

// ObjectV1 is a Gizmo of g in v1.
func (g *Gizmos) ObjectV1(name string, size int) string {
	return testschemas.GizmoV1(g.Group, name, size)
}

// ObjectV2 is a Gizmo of g in v2.
func (g *Gizmos) ObjectV2(name string, size int, label string) string {
	return testschemas.GizmoV2(g.Group, name, size, label)
}

var groups atomic.Int64

// NewGroup is a group name of its own for a test, so that its metric
// series are its own.
func NewGroup() string { return fmt.Sprintf("m%d.example.com", groups.Add(1)) }

// Stored reads every Gizmo of group stored under prefix, by key.
func Stored(t testing.TB, st storage.Storage, prefix, group string) map[string]gjson.Result {
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
