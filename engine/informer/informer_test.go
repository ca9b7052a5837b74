package informer_test

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/informer"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/schemas"
)

// feed records what Watch gives it, as "replace a,b" and "ADDED c" lines.
type feed struct {
	mu    sync.Mutex
	lines []string
}

func (f *feed) Replace(objs []engine.WatchEvent) {
	names := make([]string, 0, len(objs))
	for _, ev := range objs {
		names = append(names, gjson.GetBytes(ev.Object, "metadata.name").Str)
	}
	sort.Strings(names)
	f.add("replace " + strings.Join(names, ","))
}

func (f *feed) Apply(ev engine.WatchEvent) {
	f.add(ev.Type.String() + " " + gjson.GetBytes(ev.Object, "metadata.name").Str)
}

func (f *feed) add(line string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lines = append(f.lines, line)
}

func (f *feed) await(t *testing.T, want ...string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		f.mu.Lock()
		got := strings.Join(f.lines, "; ")
		f.mu.Unlock()
		if got == strings.Join(want, "; ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("feed got %q, want %q", got, strings.Join(want, "; "))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func hammerStore(t *testing.T) (*engine.Store, *schemas.ResourceVersion) {
	t.Helper()
	dir := t.TempDir()
	testschemas.WriteFiles(t, dir, map[string]string{"tools.yaml": testschemas.Tools})
	reg, _, err := schemas.NewLoader(dir).Load()
	if err != nil {
		t.Fatal(err)
	}
	st := etcdstorage.New(etcdtest.Start(t))
	caches := watchcache.New(st, watchcache.Config{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(caches.Close)
	return engine.NewStore(st, engine.Options{Cache: caches, Logger: slog.New(slog.DiscardHandler)}), reg.Lookup("tools.example.com", "v1", "hammers")
}

func createHammer(t *testing.T, store *engine.Store, rv *schemas.ResourceVersion, name string) {
	t.Helper()
	body := fmt.Sprintf(`{"apiVersion":"tools.example.com/v1","kind":"Hammer","metadata":{"name":%q}}`, name)
	if _, err := store.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "ns"}, Body: []byte(body), Options: engine.WriteOptions{}}); err != nil {
		t.Fatal(err)
	}
}

// TestWatchFeeds: Watch waits for the resource to be served, gives the
// feed every object at once, then each change.
func TestWatchFeeds(t *testing.T) {
	store, rv := hammerStore(t)
	createHammer(t, store, rv, "a")
	createHammer(t, store, rv, "b")
	var served atomic.Bool
	f := &feed{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		informer.Run(ctx, informer.Config{Store: store, Feed: f, Name: "hammers",
			Logger: slog.New(slog.DiscardHandler), RetryDelay: 10 * time.Millisecond,
			Resource: func() *schemas.ResourceVersion {
				if served.Load() {
					return rv
				}
				return nil
			}})
	}()
	time.Sleep(30 * time.Millisecond) // a look or two while not served
	f.await(t)
	served.Store(true)
	f.await(t, "replace a,b")
	createHammer(t, store, rv, "c")
	if _, err := store.Delete(context.Background(), engine.Ref{Version: rv, Namespace: "ns", Name: "a"}, engine.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	f.await(t, "replace a,b", "ADDED c", "DELETED a")
	cancel()
	<-done
}
