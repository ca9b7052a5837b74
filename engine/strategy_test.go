package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/schemas"
)

// heldStore is a Store whose warehouses have a Strategy as a Namespace's:
// spec.city "held" on create, kept on update but through "release",
// held while spec.city is "held", and a "keep" warehouse never deleted.
func heldStore(t *testing.T, subresources *[]string) *engine.Store {
	t.Helper()
	st := &engine.Strategy{
		PrepareCreate: func(obj map[string]any) {
			obj["spec"] = map[string]any{"city": "held"}
			md := obj["metadata"].(map[string]any)
			md["labels"] = map[string]any{"name": md["name"]}
		},
		PrepareUpdate: func(obj, old map[string]any, subresource string) {
			*subresources = append(*subresources, subresource)
			if subresource != "release" {
				obj["spec"] = old["spec"]
			}
		},
		Subresources: []string{"release"},
		CheckDelete: func(_ context.Context, name string) error {
			if name == "keep" {
				return apierrors.NewForbidden(schema.GroupResource{Group: "shop.example.com", Resource: "warehouses"}, name, errors.New("kept"))
			}
			return nil
		},
		Holds: func(stored []byte) bool { return gjson.GetBytes(stored, "spec.city").Str == "held" },
		MarkDeleting: func(stored []byte) ([]byte, error) {
			return sjson.SetBytes(stored, "status", map[string]any{"phase": "Going"})
		},
	}
	return engine.NewStore(etcdstorage.New(testClient), engine.Options{Prefix: fmt.Sprintf("/test/%d/", prefixes.Add(1)),
		Strategies: map[string]*engine.Strategy{"warehouses.shop.example.com": st}})
}

func warehouse(name, city string) string {
	return fmt.Sprintf(`{"apiVersion":"shop.example.com/v1","kind":"Warehouse","metadata":{"name":%q},"spec":{"city":%q}}`, name, city)
}

// TestStrategy: a Strategy prepares creates and updates (told which
// subresource), serves its own subresources, refuses deletes, and holds a
// deleted object, marked, until a write releases it.
func TestStrategy(t *testing.T) {
	ctx := context.Background()
	rv := warehouses(t)
	var subresources []string
	s := heldStore(t, &subresources)
	obj := mustCreate(t, s, rv, "", warehouse("a", "paris"))
	if gjson.GetBytes(obj, "spec.city").Str != "held" || gjson.GetBytes(obj, "metadata.labels.name").Str != "a" {
		t.Fatalf("created %s, want it prepared", obj)
	}
	if _, err := s.Update(ctx, rv, "", "a", []byte(withRV(warehouse("a", "rome"), obj)), engine.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateSubresource(ctx, rv, "", "a", "other", []byte(warehouse("a", "rome")), engine.WriteOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("update of an undeclared subresource: %v, want 404", err)
	}
	del, err := s.Delete(ctx, rv, "", "a", engine.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !gjson.GetBytes(del.Object, "metadata.deletionTimestamp").Exists() || gjson.GetBytes(del.Object, "status.phase").Str != "Going" {
		t.Fatalf("delete answered %s, want it marked and held", del.Object)
	}
	cur, err := s.Get(ctx, rv, "", "a")
	if err != nil {
		t.Fatalf("held object gone: %v", err)
	}
	if _, err := s.UpdateSubresource(ctx, rv, "", "a", "release", []byte(withRV(warehouse("a", "rome"), cur)), engine.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, rv, "", "a"); !apierrors.IsNotFound(err) {
		t.Fatalf("released object: %v, want it deleted", err)
	}
	if !slices.Equal(subresources, []string{"", "release"}) {
		t.Errorf("PrepareUpdate saw subresources %q", subresources)
	}
	mustCreate(t, s, rv, "", warehouse("keep", "x"))
	if _, err := s.Delete(ctx, rv, "", "keep", engine.DeleteOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("delete refused by CheckDelete: %v, want 403", err)
	}
}

func withRV(body string, from []byte) string {
	out, _ := sjson.Set(body, "metadata.resourceVersion", rvOf(from))
	return out
}

// TestNamespaceCheck: every create of a namespaced object goes through
// the check first, named by generateName when it has no name yet; a
// cluster-scoped create and an update do not.
func TestNamespaceCheck(t *testing.T) {
	ctx := context.Background()
	var seen []string
	check := func(_ context.Context, r *schemas.Resource, namespace, name string) error {
		seen = append(seen, r.Plural+" "+namespace+"/"+name)
		if namespace == "missing" {
			return apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, namespace)
		}
		return nil
	}
	s := engine.NewStore(etcdstorage.New(testClient), engine.Options{Prefix: fmt.Sprintf("/test/%d/", prefixes.Add(1)), NamespaceCheck: check})
	widgetsRV := widgets(t)
	obj := mustCreate(t, s, widgetsRV, "ns", widget("a", 1))
	if _, err := s.Create(ctx, widgetsRV, "missing", []byte(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"generateName":"w-"},"spec":{"size":"bad"}}`), engine.WriteOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("create in a missing namespace: %v, want the check's 404 before validation", err)
	}
	mustCreate(t, s, warehouses(t), "", warehouse("w", "x"))
	if _, err := s.Update(ctx, widgetsRV, "ns", "a", []byte(withRV(widget("a", 2), obj)), engine.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"widgets ns/a", "widgets missing/w-"}; !slices.Equal(seen, want) {
		t.Errorf("check saw %q, want %q", seen, want)
	}
}

// TestHeldNamespaces: the namespaces holding objects of a resource, each
// once, "a" apart from "ab".
func TestHeldNamespaces(t *testing.T) {
	s, _ := newStore(t)
	rv := widgets(t)
	for _, ns := range []string{"b", "a", "ab", "a", "z"} {
		mustCreate(t, s, rv, ns, fmt.Sprintf(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"generateName":"w-"},"spec":{"size":1}}`))
	}
	got, err := s.HeldNamespaces(context.Background(), rv.Resource)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "ab", "b", "z"}; !slices.Equal(got, want) {
		t.Fatalf("HeldNamespaces = %q, want %q", got, want)
	}
	empty, err := s.HeldNamespaces(context.Background(), warehouses(t).Resource)
	if err != nil || len(empty) != 0 {
		t.Fatalf("HeldNamespaces of nothing = %q, %v", empty, err)
	}
}
