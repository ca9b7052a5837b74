package gc

import (
	"fmt"
	"testing"

	"github.com/specd-io/specd/engine"
)

// BenchmarkPlan decides on 10,000 objects: half owners, half dependents
// of a live owner, one in ten of those dependents of a gone one.
func BenchmarkPlan(b *testing.B) {
	objs := make([]engine.StoredObject, 0, 10000)
	for i := range 5000 {
		objs = append(objs, obj(widgets, "ns", fmt.Sprintf("w%d", i)))
	}
	for i := range 5000 {
		owner := fmt.Sprintf("w%d", i)
		if i%10 == 0 {
			owner = fmt.Sprintf("gone%d", i)
		}
		objs = append(objs, obj(books, "ns", fmt.Sprintf("b%d", i), ownedBy(widgets, owner, true)))
	}
	b.ReportAllocs()
	for b.Loop() {
		if n := len(Plan(objs, kinds)); n != 500 {
			b.Fatalf("%d actions, want 500", n)
		}
	}
}
