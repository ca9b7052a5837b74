package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine"
)

func withFinalizers(name string, finalizers string) string {
	return `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"` + name +
		`","labels":{"tier":"gold"},"finalizers":` + finalizers + `},"spec":{"size":7,"tags":["a"]}}`
}

// TestDeleteWithFinalizers follows the recorded exchanges 42-44: a delete
// marks the object, a get shows it terminating, new finalizers are refused
// and removing the last one deletes it.
func TestDeleteWithFinalizers(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	rv := widgets(t)
	created := mustCreate(t, s, rv, "default", withFinalizers("w1", `["shop.example.com/hold"]`))

	res, err := s.Delete(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, engine.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := loadExchange(t, "42").Response.Body
	// The recorded object had four updates and a status before.
	sameJSON(t, withoutVolatile(t, res.Object, "metadata.generation"), withoutVolatile(t, want, "metadata.generation", "status"))
	if g := gjson.GetBytes(res.Object, "metadata.generation").Int(); g != 2 {
		t.Fatalf("generation %d, want 2 (one more on the first delete)", g)
	}
	if rvOf(res.Object) == rvOf(created) {
		t.Fatal("the deletion mark was not written")
	}
	got, err := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w1"})
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, got, res.Object)

	// A second delete changes nothing and answers the object again.
	again, err := s.Delete(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, engine.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, again.Object, res.Object)

	// No new finalizer while terminating.
	more := withFinalizers("w1", `["shop.example.com/hold","shop.example.com/more"]`)
	more = setRV(t, more, rvOf(got))
	_, err = s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, Body: []byte(more), Options: engine.WriteOptions{}})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "no new finalizers can be added if the object is being deleted") {
		t.Fatalf("adding a finalizer while terminating: %v", err)
	}

	// Removing the last finalizer deletes the object.
	none := setRV(t, withFinalizers("w1", `[]`), rvOf(got))
	upd, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, Body: []byte(none), Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	if rvOf(upd.Object) != rvOf(got) || len(gjson.GetBytes(upd.Object, "metadata.finalizers").Array()) != 0 {
		t.Fatalf("answer to the last finalizer's removal: %s", upd.Object)
	}
	if _, err := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w1"}); !apierrors.IsNotFound(err) {
		t.Fatalf("get after the last finalizer went: %v", err)
	}
}

func TestDeletePropagationFinalizers(t *testing.T) {
	ctx := context.Background()
	tests := map[string]struct {
		finalizers string
		opts       engine.DeleteOptions
		want       string // the finalizers kept; "gone" when deleted at once
	}{
		"background":                  {`[]`, engine.DeleteOptions{PropagationPolicy: metav1.DeletePropagationBackground}, "gone"},
		"default":                     {`[]`, engine.DeleteOptions{}, "gone"},
		"foreground":                  {`[]`, engine.DeleteOptions{PropagationPolicy: metav1.DeletePropagationForeground}, `["foregroundDeletion"]`},
		"orphan":                      {`[]`, engine.DeleteOptions{PropagationPolicy: metav1.DeletePropagationOrphan}, `["orphan"]`},
		"orphanDependents":            {`[]`, engine.DeleteOptions{OrphanDependents: ptr(true)}, `["orphan"]`},
		"orphan kept from the object": {`["orphan"]`, engine.DeleteOptions{}, `["orphan"]`},
		"background drops orphan":     {`["orphan"]`, engine.DeleteOptions{PropagationPolicy: metav1.DeletePropagationBackground}, "gone"},
		"foreground replaces orphan":  {`["x.io/y","orphan"]`, engine.DeleteOptions{PropagationPolicy: metav1.DeletePropagationForeground}, `["x.io/y","foregroundDeletion"]`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, _ := newStore(t)
			rv := widgets(t)
			mustCreate(t, s, rv, "default", withFinalizers("w", tc.finalizers))
			res, err := s.Delete(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w"}, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "gone" {
				if gjson.GetBytes(res.Object, "kind").String() != "Status" {
					t.Fatalf("answer %s, want a Status", res.Object)
				}
				if _, err := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w"}); !apierrors.IsNotFound(err) {
					t.Fatalf("get: %v", err)
				}
				return
			}
			sameJSON(t, []byte(gjson.GetBytes(res.Object, "metadata.finalizers").Raw), []byte(tc.want))
			if !gjson.GetBytes(res.Object, "metadata.deletionTimestamp").Exists() {
				t.Fatalf("no deletionTimestamp: %s", res.Object)
			}
		})
	}
}

func TestDeletePreconditionsAndDryRun(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	rv := widgets(t)
	obj := mustCreate(t, s, rv, "default", widget("w", 1))
	uid := gjson.GetBytes(obj, "metadata.uid").String()
	tests := map[string]struct {
		opts engine.DeleteOptions
		msg  string
	}{
		"uid":             {engine.DeleteOptions{UID: "other"}, "Precondition failed: the UID in the precondition (other) does not match"},
		"resourceVersion": {engine.DeleteOptions{ResourceVersion: "1"}, "the ResourceVersion in the precondition (1) does not match"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := s.Delete(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w"}, tc.opts)
			if !apierrors.IsConflict(err) {
				t.Fatalf("err %v, want a Conflict", err)
			}
		})
	}
	if _, err := s.Delete(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w"}, engine.DeleteOptions{DryRun: true, UID: uid}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w"}); err != nil {
		t.Fatalf("a dry run deleted: %v", err)
	}
	fin := mustCreate(t, s, rv, "default", withFinalizers("f", `["x.io/y"]`))
	res, err := s.Delete(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "f"}, engine.DeleteOptions{DryRun: true})
	if err != nil || !gjson.GetBytes(res.Object, "metadata.deletionTimestamp").Exists() {
		t.Fatalf("dry run with finalizers: %s %v", res.Object, err)
	}
	if got, _ := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "f"}); string(got) != string(fin) {
		t.Fatalf("a dry run marked the object: %s", got)
	}
	if _, err := s.Delete(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w"}, engine.DeleteOptions{UID: uid, ResourceVersion: rvOf(obj)}); err != nil {
		t.Fatal(err)
	}
}

func TestDeleteCollection(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	rv := widgets(t)
	mustCreate(t, s, rv, "default", withFinalizers("a", `[]`))
	mustCreate(t, s, rv, "default", withFinalizers("b", `["x.io/hold"]`))
	mustCreate(t, s, rv, "default", widget("c", 1))
	mustCreate(t, s, rv, "other", withFinalizers("d", `[]`))

	sel, err := engine.ParseSelector(rv, "tier=gold", "")
	if err != nil {
		t.Fatal(err)
	}
	dry, err := s.DeleteCollection(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{Selector: sel}, engine.DeleteOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if names(dry) != "[a b]" {
		t.Fatalf("dry run answered %s", names(dry))
	}
	list, err := s.DeleteCollection(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{Selector: sel}, engine.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if names(list) != "[a b]" || gjson.GetBytes(list, "kind").String() != "WidgetList" {
		t.Fatalf("answer %s", list)
	}
	left, err := s.List(ctx, engine.Ref{Version: rv, Namespace: ""}, engine.ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if names(left) != "[b c d]" {
		t.Fatalf("left %s, want b (held by its finalizer), c and d", names(left))
	}
	b, _ := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "b"})
	if !gjson.GetBytes(b, "metadata.deletionTimestamp").Exists() {
		t.Fatalf("b is not terminating: %s", b)
	}
	// Nothing matches: an empty list, as recorded in exchange 48.
	empty, err := s.DeleteCollection(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{Selector: mustSelector(t, rv, "tier=none", "")}, engine.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, withoutVolatile(t, empty, "metadata.resourceVersion"), withoutVolatile(t, loadExchange(t, "48").Response.Body, "metadata.resourceVersion"))
}

// TestPatchRemovesLastFinalizer follows exchange 44: a merge patch that
// removes the last finalizer of a terminating object deletes it and
// answers the object with its last resourceVersion.
func TestPatchRemovesLastFinalizer(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	rv := widgets(t)
	mustCreate(t, s, rv, "default", withFinalizers("w1", `["shop.example.com/hold"]`))
	marked, err := s.Delete(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, engine.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "w1"}, Type: engine.MergePatchType, Patch: []byte(`{"metadata":{"finalizers":null}}`), Options: engine.PatchOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	if rvOf(res.Object) != rvOf(marked.Object) || gjson.GetBytes(res.Object, "metadata.finalizers").Exists() ||
		!gjson.GetBytes(res.Object, "metadata.deletionTimestamp").Exists() {
		t.Fatalf("answer %s", res.Object)
	}
	if _, err := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "w1"}); !apierrors.IsNotFound(err) {
		t.Fatalf("get after the patch: %v", err)
	}
}
