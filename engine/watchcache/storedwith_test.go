package watchcache_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/serving"
)

// partsGadgets serves gadgets in parts.example.com too, from the storage
// of gadgets.example.com's gadgets: one cache, two resources.
const partsGadgets = `openapi: 3.0.3
info: {title: Parts, version: v1}
x-specd: {group: parts.example.com}
components:
  schemas:
    Gadget:
      type: object
      x-specd-resource: {storageResource: gadgets.gadgets.example.com}
      properties:
        spec:
          type: object
          properties:
            size: {type: integer}
`

// TestFollowStoredWith: gadgets.example.com and parts.example.com serve
// the same objects, from one cache; each watch sees the other's writes in
// its own apiVersion. A reload that removes parts.example.com ends its
// watches with 410 Gone; the gadgets.example.com watch ends cleanly, and
// the cache still serves it.
func TestFollowStoredWith(t *testing.T) {
	f := followedReloader(t, serving.Config{AllowBreaking: true}, map[string]string{
		"gadgets-v1.yaml": gadgetsVersion("v1", true),
		"parts-v1.yaml":   partsGadgets,
	})
	gadgets := f.rv(t, "gadgets.example.com", "v1", "gadgets")
	parts := f.rv(t, "parts.example.com", "v1", "gadgets")
	from := f.create(t, gadgets, testschemas.Gadget("v1", "g0"))
	gadgetsWatch, partsWatch := f.watch(t, gadgets, from), f.watch(t, parts, from)
	f.create(t, parts, strings.Replace(testschemas.Gadget("v1", "g1"), "gadgets.example.com", "parts.example.com", 1))
	rev := f.create(t, gadgets, testschemas.Gadget("v1", "g2"))
	for what, w := range map[string]*engine.Watch{"gadgets.example.com/v1": gadgetsWatch, "parts.example.com/v1": partsWatch} {
		for _, name := range []string{"g1", "g2"} {
			ev, err := next(t, w)
			if err != nil {
				t.Fatal(err)
			}
			if got := gjson.GetManyBytes(ev.Object, "apiVersion", "metadata.name"); got[0].Str != what || got[1].Str != name {
				t.Errorf("a %s watch got %s %s, want %s %s", what, got[0].Str, got[1].Str, what, name)
			}
		}
	}

	testschemas.WriteFiles(t, f.dir, map[string]string{"parts-v1.yaml": ""})
	if err := f.reloads.Reload(context.Background(), "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := next(t, partsWatch); !apierrors.IsGone(err) || !strings.Contains(err.Error(), "parts.example.com") {
		t.Errorf("the parts watch: %v, want 410 Gone naming parts.example.com", err)
	}
	if _, err := next(t, gadgetsWatch); err == nil || apierrors.IsGone(err) {
		t.Errorf("the gadgets watch: %v, want a clean end (it watches again)", err)
	}
	again := f.watch(t, gadgets, rev)
	f.create(t, gadgets, testschemas.Gadget("v1", "g3"))
	if ev, err := next(t, again); err != nil || gjson.GetBytes(ev.Object, "metadata.name").Str != "g3" {
		t.Errorf("watched again: %s, %v; want g3", ev.Object, err)
	}
	list, err := f.store.List(context.Background(), engine.Ref{Version: gadgets, Namespace: "default"}, engine.ListRequest{ResourceVersion: "0"})
	if err != nil {
		t.Fatalf("list after the other resource went: %v", err)
	}
	if n := len(gjson.GetBytes(list, "items").Array()); n != 4 {
		t.Errorf("%d gadgets listed, want 4", n)
	}
}
