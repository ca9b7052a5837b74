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
	return engine.NewStore(etcdstorage.New(testClient), engine.Options{Keys: engine.Keys{Prefix: fmt.Sprintf("/test/%d/", prefixes.Add(1))},
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
	if _, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "", Name: "a"}, Body: []byte(withRV(warehouse("a", "rome"), obj)), Options: engine.WriteOptions{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "", Name: "a", Subresource: "other"}, Body: []byte(warehouse("a", "rome")), Options: engine.WriteOptions{}}); !apierrors.IsNotFound(err) {
		t.Fatalf("update of an undeclared subresource: %v, want 404", err)
	}
	del, err := s.Delete(ctx, engine.Ref{Version: rv, Namespace: "", Name: "a"}, engine.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !gjson.GetBytes(del.Object, "metadata.deletionTimestamp").Exists() || gjson.GetBytes(del.Object, "status.phase").Str != "Going" {
		t.Fatalf("delete answered %s, want it marked and held", del.Object)
	}
	cur, err := s.Get(ctx, engine.Ref{Version: rv, Namespace: "", Name: "a"})
	if err != nil {
		t.Fatalf("held object gone: %v", err)
	}
	if _, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "", Name: "a", Subresource: "release"}, Body: []byte(withRV(warehouse("a", "rome"), cur)), Options: engine.WriteOptions{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, engine.Ref{Version: rv, Namespace: "", Name: "a"}); !apierrors.IsNotFound(err) {
		t.Fatalf("released object: %v, want it deleted", err)
	}
	if !slices.Equal(subresources, []string{"", "release"}) {
		t.Errorf("PrepareUpdate saw subresources %q", subresources)
	}
	mustCreate(t, s, rv, "", warehouse("keep", "x"))
	if _, err := s.Delete(ctx, engine.Ref{Version: rv, Namespace: "", Name: "keep"}, engine.DeleteOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("delete refused by CheckDelete: %v, want 403", err)
	}
}

func withRV(body string, from []byte) string {
	out, _ := sjson.Set(body, "metadata.resourceVersion", rvOf(from))
	return out
}

// seenCheck is a NamespaceCheck that records what it vets and refuses
// namespace "missing".
type seenCheck struct {
	seen    []string
	objects []engine.Reader
}

func (c *seenCheck) CheckNamespace(_ context.Context, objects engine.Reader, ref engine.Ref) error {
	c.seen = append(c.seen, ref.Version.Resource.Plural+" "+ref.Namespace+"/"+ref.Name)
	c.objects = append(c.objects, objects)
	if ref.Namespace == "missing" {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, ref.Namespace)
	}
	return nil
}

// TestNamespaceCheck: every create of a namespaced object goes through
// the check first, named by generateName when it has no name yet, and
// given the Store to read from; a cluster-scoped create and an update do
// not.
func TestNamespaceCheck(t *testing.T) {
	ctx := context.Background()
	check := &seenCheck{}
	s := engine.NewStore(etcdstorage.New(testClient), engine.Options{Keys: engine.Keys{Prefix: fmt.Sprintf("/test/%d/", prefixes.Add(1))}, NamespaceCheck: check})
	widgetsRV := widgets(t)
	obj := mustCreate(t, s, widgetsRV, "ns", widget("a", 1))
	if _, err := s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: widgetsRV, Namespace: "missing"}, Body: []byte(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"generateName":"w-"},"spec":{"size":"bad"}}`), Options: engine.WriteOptions{}}); !apierrors.IsNotFound(err) {
		t.Fatalf("create in a missing namespace: %v, want the check's 404 before validation", err)
	}
	mustCreate(t, s, warehouses(t), "", warehouse("w", "x"))
	if _, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: widgetsRV, Namespace: "ns", Name: "a"}, Body: []byte(withRV(widget("a", 2), obj)), Options: engine.WriteOptions{}}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"widgets ns/a", "widgets missing/w-"}; !slices.Equal(check.seen, want) {
		t.Errorf("check saw %q, want %q", check.seen, want)
	}
	for _, objects := range check.objects {
		if objects != engine.Reader(s) {
			t.Errorf("check given %v to read from, want the Store", objects)
		}
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
	got, err := s.Upkeep().HeldNamespaces(context.Background(), rv.Resource)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "ab", "b", "z"}; !slices.Equal(got, want) {
		t.Fatalf("HeldNamespaces = %q, want %q", got, want)
	}
	empty, err := s.Upkeep().HeldNamespaces(context.Background(), warehouses(t).Resource)
	if err != nil || len(empty) != 0 {
		t.Fatalf("HeldNamespaces of nothing = %q, %v", empty, err)
	}
}
