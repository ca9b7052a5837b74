package plugins

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/specd-io/specd/plugins/hook"
)

// everyCallback calls each method of cb once and returns their errors.
func everyCallback(cb hook.Callbacks) []error {
	ctx, r := context.Background(), hook.ResourceRef{Group: "test.specd.io", Version: "v1", Resource: "things"}
	var errs []error
	for _, call := range []func() error{
		func() error { _, err := cb.Create(ctx, r, "ns", []byte(`{"metadata":{"name":"a"}}`)); return err },
		func() error { _, err := cb.Get(ctx, r, "ns", "a"); return err },
		func() error { _, err := cb.List(ctx, r, "ns", "app=x"); return err },
		func() error { _, err := cb.Update(ctx, r, "ns", "a", []byte(`{}`)); return err },
		func() error { _, err := cb.UpdateStatus(ctx, r, "ns", "a", []byte(`{}`)); return err },
		func() error { _, err := cb.Patch(ctx, r, "ns", "a", "merge", []byte(`{}`), ""); return err },
		func() error { return cb.Delete(ctx, r, "ns", "a", "Orphan") },
	} {
		errs = append(errs, call())
	}
	return errs
}

func TestLateCallbacks(t *testing.T) {
	late := &LateCallbacks{}
	for i, err := range everyCallback(late) {
		if !errors.Is(err, errNotServing) {
			t.Errorf("call %d before Bind: %v, want %v", i, err, errNotServing)
		}
	}
	fake := newFakeCallbacks()
	late.Bind(fake)
	for i, err := range everyCallback(late) {
		if err != nil {
			t.Errorf("call %d after Bind: %v", i, err)
		}
	}
	want := []string{
		"create things ns/a", "get things ns/a", "list things ns app=x", "update things ns/a",
		"update-status things ns/a", "patch things ns/a merge {} ", "delete things ns/a Orphan",
	}
	if diff := cmp.Diff(want, fake.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}
