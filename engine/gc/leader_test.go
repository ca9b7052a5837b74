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

// replicaOf is a second specd replica on w's etcd: its own storage client
// and Store, its own collector and trigger, the same schemas.
func replicaOf(t *testing.T, w *world, trigger *gc.Trigger) (*engine.Store, *gc.Collector) {
	t.Helper()
	cli, err := etcdstorage.NewClient(context.Background(), w.cli.Endpoints())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	store := engine.NewStore(etcdstorage.New(cli), engine.Options{Logger: slog.New(slog.DiscardHandler), OnDelete: trigger.Pull})
	return store, gc.New(store, func() *schemas.Registry { return w.reg }, gc.Options{Logger: slog.New(slog.DiscardHandler), Trigger: trigger})
}

// runElected runs the collector and a term recorder as specd serve runs
// its background work: only while id leads.
func runElected(t *testing.T, w *world, id string, c *gc.Collector, l *terms) context.CancelFunc {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	cfg := leader.Config{Client: w.cli, Key: "/test-leader/background", ID: id, TTL: time.Second, Logger: slog.New(slog.DiscardHandler), Name: "test"}
	go func() {
		defer close(done)
		leader.Jobs(cfg, c, l.job(id)).Run(ctx)
	}()
	stop := func() { cancel(); <-done }
	t.Cleanup(stop)
	return stop
}

// TestCollectorOnlyOnLeader: of two replicas on one etcd only the leader
// collects; work left when the leader stops (a dependent whose owner was
// deleted through the other replica) is finished by the next leader.
func TestCollectorOnlyOnLeader(t *testing.T) {
	w := newWorld(t)
	l := &terms{t: t}
	storeA, collectorA := replicaOf(t, w, gc.NewTrigger())
	storeB, collectorB := replicaOf(t, w, gc.NewTrigger())
	stopA := runElected(t, w, "a", collectorA, l)
	l.await(t, "a")
	runElected(t, w, "b", collectorB, l)

	wh := w.create(t, w.warehouses, "", "north", nil)
	w.create(t, w.widgets, "default", "w1", nil, owner{wh, false})
	deleteThrough(t, storeA, w.warehouses, "north")
	awaitGone(t, w, w.widgets, "default", "w1")

	// Deleted through b, which does not collect: the dependent waits for
	// a pass of the leader (every 30 s), or for the next leader, which
	// runs one as it starts.
	wh2 := w.create(t, w.warehouses, "", "south", nil)
	w.create(t, w.widgets, "default", "w2", nil, owner{wh2, false})
	deleteThrough(t, storeB, w.warehouses, "south")
	stopA()
	l.await(t, "b")
	awaitGone(t, w, w.widgets, "default", "w2")
}

func deleteThrough(t *testing.T, store *engine.Store, rv *schemas.ResourceVersion, name string) {
	t.Helper()
	if _, err := store.Delete(context.Background(), rv, "", name, engine.DeleteOptions{}); err != nil {
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
