package main

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/gc"
	"github.com/specd-io/specd/schemas"
)

// gcTrigger lets the store, made first, trigger the collector made after
// it.
type gcTrigger struct{ c atomic.Pointer[gc.Collector] }

func (t *gcTrigger) Trigger() {
	if c := t.c.Load(); c != nil {
		c.Trigger()
	}
}

// startCollector runs the garbage collector of store until the returned
// stop is called; stop waits for the pass under way.
func startCollector(ctx context.Context, store *engine.Store, registry func() *schemas.Registry, t *gcTrigger, log *slog.Logger) (stop func()) {
	c := gc.New(store, registry, gc.Options{Logger: log.With("component", "gc")})
	t.c.Store(c)
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { c.Run(ctx) })
	return func() {
		cancel()
		wg.Wait()
	}
}
