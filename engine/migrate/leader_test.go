package migrate_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/internal/gizmotest"
	"github.com/specd-io/specd/engine/leader"
	"github.com/specd-io/specd/engine/migrate"
)

// TestRunnerHandsOver: two replicas on one etcd run their migration only
// while elected; the first leader stops part way, and the next goes on
// from the progress it recorded and finishes.
func TestRunnerHandsOver(t *testing.T) {
	w := newTwoWorlds(t, etcdstorage.New(testClient))
	const n = 30
	for i := range n {
		mustCreate(t, w.store, w.v1.V1, "default", w.v1.ObjectV1(fmt.Sprintf("g%02d", i), i))
	}
	var updatesA, updatesB atomic.Int32
	halfway := make(chan struct{})
	slowA := &hookStorage{Storage: w.st, beforeUpdate: func(string) {
		if updatesA.Add(1) == n/2 {
			close(halfway)
		}
		time.Sleep(10 * time.Millisecond)
	}}
	countB := &hookStorage{Storage: w.st, beforeUpdate: func(string) { updatesB.Add(1) }}
	storeOn := func(st *hookStorage) *engine.Store {
		return engine.NewStore(st, engine.Options{Keys: engine.Keys{Prefix: w.store.Upkeep().Keys().Prefix}, Logger: w.quiet, Converters: w.converterFor})
	}
	elect := func(id string, st *hookStorage) context.CancelFunc {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		runner := migrate.NewRunner(ctx, storeOn(st).Upkeep(), w.v2.Registry, w.quiet)
		cfg := leader.Config{Client: testClient, Key: "/test-leader/" + w.store.Upkeep().Keys().Prefix, ID: id, TTL: time.Second, Logger: slog.New(slog.DiscardHandler), Name: "test"}
		go func() { defer close(done); leader.Jobs(cfg, runner).Run(ctx) }()
		stop := func() { cancel(); <-done }
		t.Cleanup(stop)
		return stop
	}
	stopA := elect("a", slowA)
	select {
	case <-halfway:
	case <-time.After(20 * time.Second):
		t.Fatal("a did not migrate half the objects within 20s")
	}
	elect("b", countB)
	if got := updatesB.Load(); got != 0 {
		t.Fatalf("b migrated %d objects while a led", got)
	}
	stopA()
	waitState(t, w.st, w.stateKey(), `"done":true`)
	for key, o := range gizmotest.Stored(t, w.st, w.store.Upkeep().Keys().Prefix, w.v1.Group) {
		if o.Get("apiVersion").Str != w.v1.Group+"/v2" {
			t.Errorf("%s not migrated: %s", key, o.Raw)
		}
	}
	// b went on after the last page a recorded: it rewrote fewer than
	// all, and together they rewrote each object about once.
	a, b := updatesA.Load(), updatesB.Load()
	t.Logf("a rewrote %d objects, b %d", a, b)
	if b == 0 || b >= n+2 || a+b > n+2+5 {
		t.Errorf("a rewrote %d, b %d of %d objects; want b to go on where a stopped", a, b, n+2)
	}
}
