package engine

import (
	"testing"

	"github.com/specd-io/specd/schemas"
)

// TestKeysRef: a key names the object it was made for again, whatever
// the prefix and scope (the keys themselves: TestKeys).
func TestKeysRef(t *testing.T) {
	tests := map[string]struct {
		keys            Keys
		r               *schemas.Resource
		namespace, name string
		want            string
	}{
		"namespaced":       {Keys{}, nsResource, "a", "w1", "/specd/g.example.com/widgets/a/w1"},
		"own prefix":       {Keys{Prefix: "/other/"}, nsResource, "a", "w1", "/other/g.example.com/widgets/a/w1"},
		"cluster-scoped":   {Keys{}, clusterResource, "", "t1", "/specd/g.example.com/things/t1"},
		"core group":       {Keys{}, &schemas.Resource{Plural: "nodes", Scope: schemas.Cluster}, "", "n1", "/specd/core/nodes/n1"},
		"name with a dot":  {Keys{}, nsResource, "b", "w.1", "/specd/g.example.com/widgets/b/w.1"},
		"namespace prefix": {Keys{}, nsResource, "ab", "w", "/specd/g.example.com/widgets/ab/w"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			key := tc.keys.Object(tc.r, tc.namespace, tc.name)
			if key != tc.want {
				t.Fatalf("Object = %q, want %q", key, tc.want)
			}
			rv := &schemas.ResourceVersion{Resource: tc.r}
			want := Ref{Version: rv, Namespace: tc.namespace, Name: tc.name}
			if got := tc.keys.ref(rv, key); got != want {
				t.Errorf("ref(%q) = %+v, want %+v", key, got, want)
			}
		})
	}
}
