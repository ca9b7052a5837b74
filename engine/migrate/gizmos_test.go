package migrate_test

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
	"github.com/specd-io/specd/engine/migrate"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/schemas"
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
	reg, err := schemas.LoadFS(testschemas.Gizmos(group, storage))
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
	return testschemas.GizmoV1(g.group, name, size)
}

func (g *gizmos) objectV2(name string, size int, label string) string {
	return testschemas.GizmoV2(g.group, name, size, label)
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
