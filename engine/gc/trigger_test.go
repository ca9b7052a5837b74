package gc_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/gc"
	"github.com/specd-io/specd/schemas"
)

// TestTriggerMadeFirst: a Trigger made before the Store and the Collector
// is pulled by the Store's deletes and wakes the Collector, whose
// Interval alone would not run a pass during the test.
func TestTriggerMadeFirst(t *testing.T) {
	trigger := gc.NewTrigger()
	w := newWorldWith(t, engine.Options{Logger: slog.New(slog.DiscardHandler), OnDelete: trigger.Pull})
	c := gc.New(w.store.Upkeep(), func() *schemas.Registry { return w.reg }, gc.Options{Logger: slog.New(slog.DiscardHandler), Interval: time.Hour, Trigger: trigger})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	wh := w.create(t, w.warehouses, "", "north", nil)
	w.create(t, w.widgets, "default", "w", nil, owner{wh, false})
	// The first pass, at once, may have run before these writes.
	time.Sleep(200 * time.Millisecond)
	w.delete(t, w.warehouses, "", "north", metav1.DeletePropagationBackground)
	deadline := time.Now().Add(10 * time.Second)
	for w.exists(t, w.widgets, "default", "w") {
		if time.Now().After(deadline) {
			t.Fatal("the dependent of a deleted owner was not collected: the delete did not trigger a pass")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
