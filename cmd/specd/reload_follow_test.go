package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/engine/storage"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/schemas"
)

const toolsFile = `openapi: 3.0.3
info: {title: Tools, version: v1}
x-specd: {group: tools.example.com}
components:
  schemas:
    Hammer:
      type: object
      x-specd-resource: {}
      properties:
        spec:
          type: object
          properties:
            weight: {type: integer}
`

// gadgetsVersion is gadgetsFile with the version stored or not.
func gadgetsVersion(version string, storage bool) string {
	return strings.Replace(gadgetsFile(version, "", sizeProp), "x-specd-resource: {}",
		map[bool]string{true: "x-specd-resource: {storage: true}", false: "x-specd-resource: {storage: false}"}[storage], 1)
}

// followed is a reloader whose world a store with watch caches follows,
// on a real etcd.
type followed struct {
	r     *reloader
	dir   string
	store *engine.Store
}

func followedReloader(t *testing.T, cfg serveConfig, files map[string]string) *followed {
	t.Helper()
	r, dir := reloaderOn(t, cfg, files)
	storage := etcdstorage.New(etcdtest.Start(t))
	caches := watchcache.New(storage, watchcache.Config{Logger: quietLogger()})
	t.Cleanup(caches.Close)
	served := newServedCaches(caches)
	store := engine.NewStore(storage, engine.Options{Logger: quietLogger(), Cache: served, Converters: r.converterFor})
	f := &follower{store: store, caches: served, log: quietLogger()}
	r.onSwap = f.follow
	return &followed{r: r, dir: dir, store: store}
}

// rv is group/version/plural as the served registry serves it.
func (f *followed) rv(t *testing.T, group, version, plural string) *schemas.ResourceVersion {
	t.Helper()
	g := f.r.Registry().Group(group)
	if g == nil || g.Resource(plural) == nil || g.Resource(plural).Version(version) == nil {
		t.Fatalf("%s/%s %s is not served", group, version, plural)
	}
	return g.Resource(plural).Version(version)
}

func (f *followed) create(t *testing.T, rv *schemas.ResourceVersion, body string) string {
	t.Helper()
	res, err := f.store.Create(context.Background(), rv, "default", []byte(body), engine.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return gjson.GetBytes(res.Object, "metadata.resourceVersion").Str
}

func (f *followed) watch(t *testing.T, rv *schemas.ResourceVersion, from string) *engine.Watch {
	t.Helper()
	w, err := f.store.Watch(context.Background(), rv, "default", engine.WatchRequest{ResourceVersion: from})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return w
}

func next(t *testing.T, w *engine.Watch) (engine.WatchEvent, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ev, err := w.Next(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatal("no event in time")
	}
	return ev, err
}

// TestFollowRemovedVersion: a reload removes v1beta1 of gadgets while v1
// stays. A watch of v1beta1 ends with a 410 Gone naming it, and so does
// one that a request which took the registry before the reload starts
// after it; a watch of v1 ends cleanly, and watched again from its last
// resourceVersion gets the writes made since; a watch of another
// resource goes on.
func TestFollowRemovedVersion(t *testing.T) {
	f := followedReloader(t, serveConfig{AllowBreaking: true}, map[string]string{
		"tools.yaml":           toolsFile,
		"gadgets-v1.yaml":      gadgetsVersion("v1", true),
		"gadgets-v1beta1.yaml": gadgetsVersion("v1beta1", false),
	})
	beta := f.rv(t, "gadgets.example.com", "v1beta1", "gadgets")
	stable := f.rv(t, "gadgets.example.com", "v1", "gadgets")
	hammers := f.rv(t, "tools.example.com", "v1", "hammers")
	from := f.create(t, stable, `{"apiVersion":"gadgets.example.com/v1","kind":"Gadget","metadata":{"name":"g1"},"spec":{"size":1}}`)
	betaWatch := f.watch(t, beta, from)
	stableWatch := f.watch(t, stable, from)
	hammersWatch := f.watch(t, hammers, from)

	writeFiles(t, f.dir, map[string]string{"gadgets-v1beta1.yaml": ""})
	if err := f.r.reload(context.Background(), "test"); err != nil {
		t.Fatal(err)
	}

	wantGone := func(what string, err error) {
		t.Helper()
		msg := "gadgets.example.com/v1beta1 gadgets is no longer served"
		if !apierrors.IsGone(err) || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), "served in gadgets.example.com/v1") {
			t.Errorf("%s: %v, want a 410 Gone saying %q", what, err, msg)
		}
	}
	_, err := next(t, betaWatch)
	wantGone("the v1beta1 watch", err)
	// A request that took the registry before the reload.
	late := f.watch(t, beta, from)
	_, err = next(t, late)
	wantGone("a v1beta1 watch started after the reload", err)

	if _, err := next(t, stableWatch); !errors.Is(err, engine.ErrWatchClosed) {
		t.Fatalf("the v1 watch: %v, want it ended cleanly", err)
	}
	stable = f.rv(t, "gadgets.example.com", "v1", "gadgets")
	f.create(t, stable, `{"apiVersion":"gadgets.example.com/v1","kind":"Gadget","metadata":{"name":"g2"},"spec":{"size":2}}`)
	again := f.watch(t, stable, from)
	if ev, err := next(t, again); err != nil || ev.Type != storage.EventAdded || gjson.GetBytes(ev.Object, "metadata.name").Str != "g2" {
		t.Errorf("the v1 watch again from %s: %s %s, %v; want ADDED g2", from, ev.Type, ev.Object, err)
	}

	f.create(t, f.rv(t, "tools.example.com", "v1", "hammers"), `{"apiVersion":"tools.example.com/v1","kind":"Hammer","metadata":{"name":"h1"},"spec":{"weight":3}}`)
	if ev, err := next(t, hammersWatch); err != nil || ev.Type != storage.EventAdded || gjson.GetBytes(ev.Object, "metadata.name").Str != "h1" {
		t.Errorf("the hammers watch: %s %s, %v; want ADDED h1", ev.Type, ev.Object, err)
	}
}

func TestVersionsGone(t *testing.T) {
	res := func(versions ...string) *schemas.Resource {
		r := &schemas.Resource{Group: "gadgets.example.com", Plural: "gadgets"}
		for _, v := range versions {
			name, hidden := strings.CutSuffix(v, "-")
			r.Versions = append(r.Versions, &schemas.ResourceVersion{Resource: r, Version: name, Hidden: hidden})
		}
		return r
	}
	tests := map[string]struct {
		old, next *schemas.Resource
		want      []string
	}{
		"one removed":          {old: res("v1", "v1beta1"), next: res("v1"), want: []string{"v1beta1"}},
		"one no longer served": {old: res("v1", "v1beta1"), next: res("v1", "v1beta1-"), want: []string{"v1beta1"}},
		"one added":            {old: res("v1"), next: res("v1", "v2")},
		"hidden before":        {old: res("v1", "v1beta1-"), next: res("v1")},
		"served again":         {old: res("v1", "v1beta1-"), next: res("v1", "v1beta1")},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			gone := versionsGone(tc.old, tc.next)
			var got []string
			for v, err := range gone {
				got = append(got, v)
				if !apierrors.IsGone(err) || !strings.Contains(err.Error(), "gadgets.example.com/"+v+" gadgets is no longer served") {
					t.Errorf("%s: %v", v, err)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("gone %v, want %v", got, tc.want)
			}
		})
	}
}
