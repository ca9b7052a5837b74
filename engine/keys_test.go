package engine

import (
	"testing"

	"github.com/specd-io/specd/schemas"
)

func TestCacheKeyOf(t *testing.T) {
	res := &schemas.Resource{Group: "gadgets.example.com", Plural: "gadgets", Scope: schemas.Namespaced}
	for _, prefix := range []string{"", "/other/"} {
		want := NewStore(nil, Options{Prefix: prefix}).ResourcePrefix(res)
		if got := CacheKeyOf(prefix)(res); got != want {
			t.Errorf("CacheKeyOf(%q) = %q, want the Store's %q", prefix, got, want)
		}
	}
}
