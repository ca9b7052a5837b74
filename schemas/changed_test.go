package schemas_test

import (
	"fmt"
	"maps"
	"testing"

	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
)

// checkEachChanged fails the test unless EachChanged(prev, next) calls
// back with what a walk of every resource of both registries finds: each
// resource of next that prev does not hold under its name, and each of
// prev whose name next does not hold. The reuse walks call it after each
// load.
func checkEachChanged(t *testing.T, step int, prev, next *schemas.Registry) {
	t.Helper()
	want := map[string]bool{}
	for _, res := range registryResources(next) {
		if o := prev.Resource(res.GroupResource()); o != res {
			want[pairName(o, res)] = true
		}
	}
	for _, res := range registryResources(prev) {
		if next.Resource(res.GroupResource()) == nil {
			want[pairName(res, nil)] = true
		}
	}
	got := map[string]bool{}
	schemas.EachChanged(prev, next, func(o, n *schemas.Resource) {
		if got[pairName(o, n)] {
			t.Errorf("step %d: EachChanged called twice with %s", step, pairName(o, n))
		}
		got[pairName(o, n)] = true
	})
	if !maps.Equal(got, want) {
		t.Fatalf("step %d: EachChanged called back with %v, a walk of both registries finds %v", step, got, want)
	}
}

func registryResources(reg *schemas.Registry) []*schemas.Resource {
	if reg == nil {
		return nil
	}
	return reg.Resources()
}

// pairName names a pair of resources by name and address.
func pairName(o, n *schemas.Resource) string {
	name := func(r *schemas.Resource) string {
		if r == nil {
			return "none"
		}
		return fmt.Sprintf("%s@%p", r.GroupResource(), r)
	}
	return name(o) + " -> " + name(n)
}

// TestHolds: a registry holds each of its resources, and neither a copy
// of one nor nil.
func TestHolds(t *testing.T) {
	reg, err := schemas.LoadBuiltin(builtin.Schemas())
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range reg.Resources() {
		if !reg.Holds(res) {
			t.Errorf("%s: not held", res.GroupResource())
		}
		if c := *res; reg.Holds(&c) {
			t.Errorf("%s: a copy is held", res.GroupResource())
		}
	}
	if reg.Holds(nil) {
		t.Error("nil is held")
	}
}
