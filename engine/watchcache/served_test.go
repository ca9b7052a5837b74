package watchcache_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/serving"
)

// gadgetsVersion is the Gadget file of version, stored or not.
func gadgetsVersion(version string, storage bool) string {
	return testschemas.Gadgets(testschemas.GadgetOptions{Version: version, Resource: fmt.Sprintf("{storage: %t}", storage)})
}

// followed is a served schema set whose reloads a store with watch
// caches follows, on a real etcd.
type followed struct {
	r       *serving.Set
	reloads *serving.Reloads
	dir     string
	store   *engine.Store
}

func followedReloader(t *testing.T, cfg serving.Config, files map[string]string) *followed {
	t.Helper()
	dir := t.TempDir()
	testschemas.WriteFiles(t, dir, files)
	cfg.Dir, cfg.Logger = dir, quietLogger()
	r, err := serving.New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	storage := etcdstorage.New(etcdtest.Start(t))
	caches := watchcache.New(storage, watchcache.Config{Logger: quietLogger()})
	t.Cleanup(caches.Close)
	served := watchcache.NewServed(caches, engine.Keys{}.Resource)
	store := engine.NewStore(storage, engine.Options{Logger: quietLogger(), Cache: served, Converters: r.ConverterFor})
	reloads := r.Serve(t.Context(), nil, served)
	t.Cleanup(reloads.Stop)
	return &followed{r: r, reloads: reloads, dir: dir, store: store}
}

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// writeFiles writes files in dir; "" removes one.
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
	res, err := f.store.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: []byte(body), Options: engine.WriteOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	return gjson.GetBytes(res.Object, "metadata.resourceVersion").Str
}

func (f *followed) watch(t *testing.T, rv *schemas.ResourceVersion, from string) *engine.Watch {
	t.Helper()
	w, err := f.store.Watch(context.Background(), engine.Ref{Version: rv, Namespace: "default"}, engine.WatchRequest{ResourceVersion: from})
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
	f := followedReloader(t, serving.Config{AllowBreaking: true}, map[string]string{
		"tools.yaml":           testschemas.Tools,
		"gadgets-v1.yaml":      gadgetsVersion("v1", true),
		"gadgets-v1beta1.yaml": gadgetsVersion("v1beta1", false),
	})
	beta := f.rv(t, "gadgets.example.com", "v1beta1", "gadgets")
	stable := f.rv(t, "gadgets.example.com", "v1", "gadgets")
	hammers := f.rv(t, "tools.example.com", "v1", "hammers")
	from := f.create(t, stable, testschemas.Gadget("v1", "g1"))
	betaWatch := f.watch(t, beta, from)
	stableWatch := f.watch(t, stable, from)
	hammersWatch := f.watch(t, hammers, from)

	testschemas.WriteFiles(t, f.dir, map[string]string{"gadgets-v1beta1.yaml": ""})
	if err := f.reloads.Reload(context.Background(), "test"); err != nil {
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
	f.create(t, stable, testschemas.Gadget("v1", "g2"))
	again := f.watch(t, stable, from)
	if ev, err := next(t, again); err != nil || ev.Type != storage.EventAdded || gjson.GetBytes(ev.Object, "metadata.name").Str != "g2" {
		t.Errorf("the v1 watch again from %s: %s %s, %v; want ADDED g2", from, ev.Type, ev.Object, err)
	}

	f.create(t, f.rv(t, "tools.example.com", "v1", "hammers"), testschemas.Hammer("h1"))
	if ev, err := next(t, hammersWatch); err != nil || ev.Type != storage.EventAdded || gjson.GetBytes(ev.Object, "metadata.name").Str != "h1" {
		t.Errorf("the hammers watch: %s %s, %v; want ADDED h1", ev.Type, ev.Object, err)
	}
}
