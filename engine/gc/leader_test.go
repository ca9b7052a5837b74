package gc_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/gc"
	"github.com/specd-io/specd/engine/leader"
	"github.com/specd-io/specd/schemas"
)

// terms records which replica runs the background work; it fails the
// test if two run it at once.
type terms struct {
	t       *testing.T
	mu      sync.Mutex
	current string
	log     []string
}

func (l *terms) job(id string) background.Job {
	return background.JobFunc(func(ctx context.Context) {
		l.mu.Lock()
		if l.current != "" {
			l.t.Errorf("%s runs the background work while %s does", id, l.current)
		}
		l.current = id
		l.log = append(l.log, id)
		l.mu.Unlock()
		<-ctx.Done()
		l.mu.Lock()
		l.current = ""
		l.mu.Unlock()
	})
}

func (l *terms) await(t *testing.T, id string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		l.mu.Lock()
		cur, log := l.current, append([]string(nil), l.log...)
		l.mu.Unlock()
		if cur == id {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not lead within 10s (current %q, terms %v)", id, cur, log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// replica is one specd replica on w's etcd, as specd serve wires one: its
// own storage client and Store, its own collector, whose trigger a delete
// through any replica pulls (a leader.Signal).
type replica struct {
	store     *engine.Store
	collector *gc.Collector
	deletes   *leader.Signal
}

func replicaOf(t *testing.T, w *world) *replica {
	t.Helper()
	cli, err := etcdstorage.NewClient(context.Background(), w.endpoints)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	log := slog.New(slog.DiscardHandler)
	trigger := gc.NewTrigger()
	deletes := leader.NewSignal(cli, "test-gc", trigger.Pull, log)
	store := engine.NewStore(etcdstorage.New(cli), engine.Options{Logger: log, OnDelete: deletes.Raise})
	return &replica{store: store, deletes: deletes,
		collector: gc.New(store.Upkeep(), func() *schemas.Registry { return w.reg }, gc.Options{Logger: log, Trigger: trigger})}
}

// runElected runs the collector, its signal and a term recorder as specd
// serve runs its background work: only while id leads.
func runElected(t *testing.T, w *world, id string, r *replica, l *terms) context.CancelFunc {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	cfg := leader.Config{Client: w.cli, Key: "/test-leader/background", ID: id, TTL: time.Second, Logger: slog.New(slog.DiscardHandler), Name: "test"}
	go func() {
		defer close(done)
		leader.Jobs(cfg, r.collector, r.deletes, l.job(id)).Run(ctx)
	}()
	stop := func() { cancel(); <-done }
	t.Cleanup(stop)
	return stop
}

// TestCollectorOnlyOnLeader: of two replicas on one etcd only the leader
// collects, also after deletes through the other replica; work left when
// the leader stops is finished by the next leader.
func TestCollectorOnlyOnLeader(t *testing.T) {
	w := newWorld(t)
	l := &terms{t: t}
	a, b := replicaOf(t, w), replicaOf(t, w)
	stopA := runElected(t, w, "a", a, l)
	l.await(t, "a")
	runElected(t, w, "b", b, l)

	// Deleted through b, which does not collect: its signal pulls a's
	// trigger (a's periodic pass is 30 s away).
	wh := w.create(t, w.warehouses, "", "north", nil)
	w.create(t, w.widgets, "default", "w1", nil, owner{wh, false})
	deleteThrough(t, b.store, w.warehouses, "north")
	awaitGone(t, w, w.widgets, "default", "w1")

	// A dependent whose owner never existed, which nothing signals: a
	// stops before its next periodic pass, and b, taking over, collects
	// it in the pass it runs as it starts.
	time.Sleep(200 * time.Millisecond) // a's passes for w1 end
	w.create(t, w.widgets, "default", "w2", nil, owner{[]byte(`{"apiVersion":"shop.example.com/v1","kind":"Warehouse","metadata":{"name":"never","uid":"never"}}`), false})
	stopA()
	l.await(t, "b")
	awaitGone(t, w, w.widgets, "default", "w2")
}

func deleteThrough(t *testing.T, store *engine.Store, rv *schemas.ResourceVersion, name string) {
	t.Helper()
	if _, err := store.Delete(context.Background(), engine.Ref{Version: rv, Namespace: "", Name: name}, engine.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

func awaitGone(t *testing.T, w *world, rv *schemas.ResourceVersion, ns, name string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for w.exists(t, rv, ns, name) {
		if time.Now().After(deadline) {
			t.Fatalf("%s/%s is not collected within 10s", ns, name)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
