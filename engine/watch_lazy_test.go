package engine_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/schemas"
)

// watchCountingStorage counts the storage watches: one per cache started.
type watchCountingStorage struct {
	*etcdstorage.Storage
	watches atomic.Int64
}

func (c *watchCountingStorage) Watch(ctx context.Context, prefix string, after int64) <-chan storage.Event {
	c.watches.Add(1)
	return c.Storage.Watch(ctx, prefix, after)
}

// coldStore is a Store whose caches start on first use, and the widgets.
func coldStore(t *testing.T) (*engine.Store, *watchcache.Caches, *watchCountingStorage, *schemas.ResourceVersion) {
	t.Helper()
	st := &watchCountingStorage{Storage: etcdstorage.New(testClient)}
	caches := watchcache.New(st, watchcache.Config{})
	t.Cleanup(caches.Close)
	s := engine.NewStore(st, engine.Options{Keys: engine.Keys{Prefix: fmt.Sprintf("/test/%d/", prefixes.Add(1))}, Now: func() time.Time { return testNow }, Cache: caches})
	return s, caches, st, widgets(t)
}

// writeWidgets creates b, updates a, deletes b and creates c, and
// returns what a watch of them reports.
func writeWidgets(t *testing.T, s *engine.Store, rv *schemas.ResourceVersion) []string {
	t.Helper()
	ctx := context.Background()
	mustCreate(t, s, rv, "default", widget("b", 2))
	cur, err := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "a"})
	if err != nil {
		t.Fatal(err)
	}
	cur, _ = sjson.SetBytes(cur, "spec.size", 5)
	if _, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: "a"}, Body: cur, Options: engine.WriteOptions{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Delete(ctx, engine.Ref{Version: rv, Namespace: "default", Name: "b"}, engine.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, rv, "default", widget("c", 3))
	return []string{"ADDED b spec.size=2", "MODIFIED a spec.size=5", "DELETED b spec.size=2", "ADDED c spec.size=3"}
}

// TestWatchStartsColdCacheAtRevision: a list read from etcd at X, then
// writes, then the resource's first watch, from X: its cache starts at X
// and the watch gets exactly the writes after X.
func TestWatchStartsColdCacheAtRevision(t *testing.T) {
	ctx := context.Background()
	s, _, st, rv := coldStore(t)
	x := rvOf(mustCreate(t, s, rv, "default", widget("a", 1)))
	list, err := s.List(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{ResourceVersion: x, ResourceVersionMatch: "Exact"})
	if err != nil || names(list) != "[a]" || rvOf(list) != x {
		t.Fatalf("list at %s: %s, %v", x, list, err)
	}
	want := writeWidgets(t, s, rv)
	if n := st.watches.Load(); n != 0 {
		t.Fatalf("%d storage watches before the first watch: the cache is not cold", n)
	}
	w, err := s.Watch(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.WatchRequest{ResourceVersion: x})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if got := events(t, w, len(want), "spec.size"); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	// Nothing twice: the next event is the next write.
	mustCreate(t, s, rv, "default", widget("d", 4))
	if got := events(t, w, 1, "spec.size"); got[0] != "ADDED d spec.size=4" {
		t.Errorf("after the replay: %v, want ADDED d", got)
	}
}

// TestWatchColdCacheCompacted: the first watch from a revision etcd has
// compacted is 410 Expired, as from a running cache's window.
func TestWatchColdCacheCompacted(t *testing.T) {
	ctx := context.Background()
	s, _, _, rv := coldStore(t)
	x := rvOf(mustCreate(t, s, rv, "default", widget("a", 1)))
	last := rvOf(mustCreate(t, s, rv, "default", widget("b", 1)))
	rev, _ := strconv.ParseInt(last, 10, 64)
	if _, err := testClient.Compact(ctx, rev, clientv3.WithCompactPhysical()); err != nil {
		t.Fatal(err)
	}
	_, err := s.Watch(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.WatchRequest{ResourceVersion: x})
	if !apierrors.IsResourceExpired(err) || !strings.HasPrefix(err.Error(), "too old resource version: "+x+" (") {
		t.Fatalf("watch from %s after compaction at %s: %v, want 410 Expired", x, last, err)
	}
	// The client lists again and watches from there.
	w, err := s.Watch(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.WatchRequest{ResourceVersion: last})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	mustCreate(t, s, rv, "default", widget("c", 3))
	if got := events(t, w, 1, "spec.size"); got[0] != "ADDED c spec.size=3" {
		t.Errorf("watch from %s: %v", last, got)
	}
}

// TestWatchFromBeforeAListStartedTheCache is what kubectl wait does after
// a create: w1 is created in namespace a at X, w2 in b; a list of b
// starts the cache after X; a watch of a from X, and one of every
// namespace, get every change after X once, then the live ones, as from
// kube-apiserver's cache, which runs from the start. Once etcd has
// compacted X, a watch from it is 410 Expired.
func TestWatchFromBeforeAListStartedTheCache(t *testing.T) {
	ctx := context.Background()
	s, _, _, rv := coldStore(t)
	x := rvOf(mustCreate(t, s, rv, "a", widget("w1", 1)))
	mustCreate(t, s, rv, "b", widget("w2", 2))
	if list, err := s.List(ctx, engine.Ref{Version: rv, Namespace: "b"}, engine.ListRequest{ResourceVersion: "0"}); err != nil || names(list) != "[w2]" {
		t.Fatalf("list of b from the cache: %s, %v", list, err)
	}
	watch := func(ns string) *engine.Watch {
		w, err := s.Watch(ctx, engine.Ref{Version: rv, Namespace: ns}, engine.WatchRequest{ResourceVersion: x})
		if err != nil {
			t.Fatalf("watch of %q from %s: %v", ns, x, err)
		}
		t.Cleanup(w.Stop)
		return w
	}
	inA, all := watch("a"), watch("")
	cur, err := s.Get(ctx, engine.Ref{Version: rv, Namespace: "a", Name: "w1"})
	if err != nil {
		t.Fatal(err)
	}
	cur, _ = sjson.SetBytes(cur, "spec.size", 5)
	if _, err := s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "a", Name: "w1"}, Body: cur, Options: engine.WriteOptions{}}); err != nil {
		t.Fatal(err)
	}
	if got := events(t, inA, 1, "spec.size"); got[0] != "MODIFIED w1 spec.size=5" {
		t.Errorf("namespace a: %v, want MODIFIED w1", got)
	}
	want := []string{"ADDED w2 spec.size=2", "MODIFIED w1 spec.size=5"}
	if got := events(t, all, 2, "spec.size"); !slices.Equal(got, want) {
		t.Errorf("every namespace: %v, want %v", got, want)
	}
	last := rvOf(mustCreate(t, s, rv, "a", widget("w3", 3)))
	for name, w := range map[string]*engine.Watch{"a": inA, "every": all} {
		if got := events(t, w, 1, "spec.size"); got[0] != "ADDED w3 spec.size=3" || w.Pending() {
			t.Errorf("namespace %s, live: %v, pending %v", name, got, w.Pending())
		}
	}

	rev, _ := strconv.ParseInt(last, 10, 64)
	if _, err := testClient.Compact(ctx, rev, clientv3.WithCompactPhysical()); err != nil {
		t.Fatal(err)
	}
	_, err = s.Watch(ctx, engine.Ref{Version: rv, Namespace: "a"}, engine.WatchRequest{ResourceVersion: x})
	if !apierrors.IsResourceExpired(err) || !strings.HasPrefix(err.Error(), "too old resource version: "+x+" (") {
		t.Fatalf("watch from %s after compaction at %s: %v, want 410 Expired", x, last, err)
	}
}

// TestColdCacheConcurrentFirstWatches: watches that start a cold
// resource at once share one cache (one etcd watch), and each gets every
// write after its revision.
func TestColdCacheConcurrentFirstWatches(t *testing.T) {
	ctx := context.Background()
	s, _, st, rv := coldStore(t)
	x := rvOf(mustCreate(t, s, rv, "default", widget("a", 1)))
	want := writeWidgets(t, s, rv)
	const n = 8
	watches := make([]*engine.Watch, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			watches[i], errs[i] = s.Watch(ctx, engine.Ref{Version: rv, Namespace: ""}, engine.WatchRequest{ResourceVersion: x})
		})
	}
	wg.Wait()
	for i, w := range watches {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if got := events(t, w, len(want), "spec.size"); !slices.Equal(got, want) {
			t.Errorf("watch %d: %v, want %v", i, got, want)
		}
		w.Stop()
	}
	if got := st.watches.Load(); got != 1 {
		t.Errorf("%d etcd watches, want 1", got)
	}
}

// TestInformerOnColdResource runs what a client-go informer does (list,
// then watch from the list's resourceVersion; watch again from the last
// one seen when a watch ends; list again on 410) while objects change,
// and checks that it ends with exactly what etcd holds, having seen
// every change once, without listing again: when its first watch finds
// the cache cold, and when the cache stops under it (a schema reload, an
// idle cache) and its next watch starts it again.
func TestInformerOnColdResource(t *testing.T) {
	tests := map[string]struct {
		list      engine.ListRequest
		fromEtcd  bool // list pages from etcd at its current revision
		stopCache bool // stop the cache while the informer watches
	}{
		"list from etcd, first watch on a cold cache": {list: engine.ListRequest{Limit: 3}, fromEtcd: true},
		"list from the cache, cache stopped under the watch": {
			list: engine.ListRequest{ResourceVersion: "0"}, stopCache: true},
		"consistent list, cache stopped under the watch": {stopCache: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			s, caches, st, rv := coldStore(t)
			for i := range 5 {
				mustCreate(t, s, rv, "default", widget(fmt.Sprintf("w%d", i), i+1))
			}
			if tc.fromEtcd {
				tc.list.ResourceVersion = strconv.FormatInt(currentRevision(t), 10)
				tc.list.ResourceVersionMatch = "Exact"
			}
			done := make(chan struct{})
			inf := &informer{t: t, s: s, rv: rv, state: map[string]int64{}, watching: make(chan struct{})}
			go func() {
				defer close(done)
				churn(t, s, rv, 60, func(i int) {
					if tc.stopCache && i%20 == 10 {
						// Under the watch, however slow the machine is to
						// start it.
						select {
						case <-inf.watching:
						case <-ctx.Done():
						}
						caches.Stop(s.Upkeep().Keys().Resource(rv.Resource))
					}
				})
			}()
			inf.list(ctx, tc.list)
			if tc.fromEtcd && st.watches.Load() != 0 {
				t.Fatal("the cache runs before the first watch")
			}
			inf.watchUntil(ctx, done)
			if inf.relists != 0 {
				t.Errorf("the informer listed again %d times", inf.relists)
			}
			if tc.stopCache && inf.watches < 2 {
				t.Errorf("the informer watched %d times: the cache did not stop under it", inf.watches)
			}
			want, err := s.List(ctx, engine.Ref{Version: rv, Namespace: "default"}, engine.ListRequest{})
			if err != nil {
				t.Fatal(err)
			}
			var wantState []string
			for _, it := range gjson.GetBytes(want, "items").Array() {
				wantState = append(wantState, it.Get("metadata.name").Str+"@"+it.Get("metadata.resourceVersion").Str)
			}
			if got := inf.snapshot(); !slices.Equal(got, wantState) {
				t.Errorf("informer state %v, etcd %v", got, wantState)
			}
		})
	}
}

// churn makes n changes to the widgets, calling between(i) before each.
// It runs beside the test: it reports errors, never stops the test.
func churn(t *testing.T, s *engine.Store, rv *schemas.ResourceVersion, n int, between func(i int)) {
	ctx := context.Background()
	for i := range n {
		between(i)
		name := fmt.Sprintf("w%d", i%7)
		cur, err := s.Get(ctx, engine.Ref{Version: rv, Namespace: "default", Name: name})
		switch {
		case apierrors.IsNotFound(err):
			_, err = s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: []byte(widget(name, i+1)), Options: engine.WriteOptions{}})
		case err != nil:
		case i%3 == 0:
			_, err = s.Delete(ctx, engine.Ref{Version: rv, Namespace: "default", Name: name}, engine.DeleteOptions{})
		default:
			cur, _ = sjson.SetBytes(cur, "spec.size", i+1)
			_, err = s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default", Name: name}, Body: cur, Options: engine.WriteOptions{}})
		}
		if err != nil {
			t.Errorf("change %d: %v", i, err)
			return
		}
	}
}

// currentRevision is etcd's revision now.
func currentRevision(t *testing.T) int64 {
	t.Helper()
	resp, err := testClient.Get(context.Background(), "/none")
	if err != nil {
		t.Fatal(err)
	}
	return resp.Header.Revision
}

// informer is client-go's reflector reduced to what the test needs.
type informer struct {
	t       *testing.T
	s       *engine.Store
	rv      *schemas.ResourceVersion
	state   map[string]int64 // name -> resourceVersion
	last    int64
	relists int
	watches int
	// watching is closed once the first watch has started.
	watching chan struct{}
}

func (inf *informer) list(ctx context.Context, req engine.ListRequest) {
	inf.t.Helper()
	clear(inf.state)
	for {
		page, err := inf.s.List(ctx, engine.Ref{Version: inf.rv, Namespace: "default"}, req)
		if err != nil {
			inf.t.Fatal(err)
		}
		for _, it := range gjson.GetBytes(page, "items").Array() {
			inf.state[it.Get("metadata.name").Str] = it.Get("metadata.resourceVersion").Int()
		}
		inf.last = gjson.GetBytes(page, "metadata.resourceVersion").Int()
		if req.Continue = gjson.GetBytes(page, "metadata.continue").Str; req.Continue == "" {
			return
		}
		req.ResourceVersion, req.ResourceVersionMatch = "", ""
	}
}

// watchUntil watches until done is closed and the informer has seen
// the last change.
func (inf *informer) watchUntil(ctx context.Context, done <-chan struct{}) {
	inf.t.Helper()
	for {
		w, err := inf.s.Watch(ctx, engine.Ref{Version: inf.rv, Namespace: "default"}, engine.WatchRequest{ResourceVersion: strconv.FormatInt(inf.last, 10)})
		if apierrors.IsResourceExpired(err) {
			inf.relists++
			inf.list(ctx, engine.ListRequest{ResourceVersion: "0"})
			continue
		}
		if err != nil {
			inf.t.Fatal(err)
		}
		if inf.watches++; inf.watches == 1 {
			close(inf.watching)
		}
		finished := inf.drain(ctx, w, done)
		w.Stop()
		if finished {
			return
		}
	}
}

// drain applies w's events until it ends (false) or the informer has
// seen the last change (true).
func (inf *informer) drain(ctx context.Context, w *engine.Watch, done <-chan struct{}) bool {
	inf.t.Helper()
	final := int64(-1)
	for {
		if final < 0 {
			select {
			case <-done:
				final = currentRevision(inf.t)
			default:
			}
		}
		if final >= 0 && inf.last >= final {
			return true
		}
		nctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		ev, err := w.Next(nctx)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				inf.t.Fatalf("informer at %d, the last change at %d: %v", inf.last, final, ctx.Err())
			}
			if errors.Is(err, context.DeadlineExceeded) {
				continue // no event for a while
			}
			if !errors.Is(err, engine.ErrWatchClosed) {
				inf.t.Fatal(err)
			}
			return false // watch again
		}
		obj := gjson.ParseBytes(ev.Object)
		rev := obj.Get("metadata.resourceVersion").Int()

		if rev <= inf.last {
			inf.t.Fatalf("event %s %s at %d after %d: seen twice or out of order", ev.Type, obj.Get("metadata.name").Str, rev, inf.last)
		}
		inf.last = rev
		name := obj.Get("metadata.name").Str
		if ev.Type == storage.EventDeleted {
			delete(inf.state, name)
		} else {
			inf.state[name] = rev
		}
	}
}

func (inf *informer) snapshot() []string {
	var out []string
	for name, rev := range inf.state {
		out = append(out, fmt.Sprintf("%s@%d", name, rev))
	}
	slices.Sort(out)
	return out
}

// TestWatchFromTheFuture: a watch that asks for the objects as of a
// revision storage has not reached answers as kube-apiserver does, 504
// with cause ResourceVersionTooLarge, instead of objects older than asked.
func TestWatchFromTheFuture(t *testing.T) {
	s, _, _, rv := coldStore(t)
	mustCreate(t, s, rv, "default", widget("w", 1))
	future := strconv.FormatInt(currentRevision(t)+1000, 10)
	initial := true
	_, err := s.Watch(t.Context(), engine.Ref{Version: rv, Namespace: "default"}, engine.WatchRequest{ResourceVersion: future,
		ResourceVersionMatch: "NotOlderThan", SendInitialEvents: &initial, AllowBookmarks: true})

	var st apierrors.APIStatus
	if !errors.As(err, &st) || st.Status().Code != http.StatusGatewayTimeout ||
		st.Status().Details == nil || len(st.Status().Details.Causes) == 0 ||
		st.Status().Details.Causes[0].Type != metav1.CauseTypeResourceVersionTooLarge {
		t.Fatalf("watch from revision %s: %v, want 504 ResourceVersionTooLarge", future, err)
	}
}
