package gc

import (
	"testing"

	"github.com/specd-io/specd/engine"
)

// A dependent whose owner is in a foreign group (a host cluster's) is
// never collected by specd, even when specd serves a kind of that group
// and name and stores no such owner; without ForeignGroups it is.
func TestForeignOwnersAreKept(t *testing.T) {
	objs := []engine.StoredObject{obj(widgets, "ns", "w", ownedBy(books, "gone", false))}
	tests := map[string]struct {
		foreign []string
		want    string
	}{
		"served group, owner gone": {want: "delete(Background) w"},
		"foreign group":            {foreign: []string{"library.example.com"}, want: ""},
		"another group foreign":    {foreign: []string{"apps"}, want: "delete(Background) w"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := describe(Plan(objs, WithoutGroups(kinds, tc.foreign))); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
