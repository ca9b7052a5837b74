package engine_test

import (
	"context"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

// unconditionalNotes is notes with Resource.UnconditionalUpdate, as the
// built-in kinds declare it.
func unconditionalNotes(tb testing.TB) *schemas.ResourceVersion {
	rv := notes(tb)
	rv.Resource.UnconditionalUpdate = true
	return rv
}

// TestUnconditionalUpdate: an update without a resourceVersion replaces
// the stored object when the resource allows it (kube's built-in kinds,
// as Helm's Secret driver relies on), even under concurrent updates, and
// is refused with kube's 422 otherwise (as for CRDs).
func TestUnconditionalUpdate(t *testing.T) {
	ctx := context.Background()
	s := notesStore(t)
	for _, rv := range []*schemas.ResourceVersion{notes(t), unconditionalNotes(t)} {
		if _, err := s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "ns"}, Body: note("u", `"data":{"a":"YQ=="}`), Options: engine.WriteOptions{}}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	_, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: notes(t), Namespace: "ns", Name: "u"}, Body: note("u", `"data":{"a":"Yg=="}`), Options: engine.WriteOptions{}})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("update without resourceVersion of a resource that requires one: %v, want 422 Invalid", err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: unconditionalNotes(t), Namespace: "ns", Name: "u"}, Body: note("u", `"data":{"a":"Yg=="}`), Options: engine.WriteOptions{}})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("unconditional update %d: %v", i, err)
		}
	}
	got, err := s.Get(ctx, engine.Ref{Version: unconditionalNotes(t), Namespace: "ns", Name: "u"})
	if err != nil {
		t.Fatal(err)
	}
	wantMutated(t, got, "data.a", "Yg==")
}
