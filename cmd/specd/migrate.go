package main

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

// Retry delays of a storage migration that stopped on a storage error
// (etcd unreachable): it continues where it stopped.
const (
	migrateRetryFirst = 5 * time.Second
	migrateRetryMax   = 2 * time.Minute
)

// startMigration moves, in the background, every stored object that is not
// in its resource's storage version to it (engine.Store.MigrateStorage),
// retrying after storage errors. The returned function stops it and waits
// for it; progress is kept, so the next start continues.
func startMigration(ctx context.Context, store *engine.Store, reg *schemas.Registry, log *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		delay := migrateRetryFirst
		for {
			_, err := store.MigrateStorage(ctx, reg, engine.MigrateOptions{})
			if err == nil || ctx.Err() != nil {
				return
			}
			log.Warn("storage migration failed; retrying", "in", delay, "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(delay):
			}
			delay = min(2*delay, migrateRetryMax)
		}
	})
	return func() {
		cancel()
		wg.Wait()
	}
}
