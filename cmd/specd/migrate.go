package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/serving"
)

// Retry delays of a storage migration that stopped on a storage error
// (etcd unreachable): it continues where it stopped.
const (
	migrateRetryFirst = 5 * time.Second
	migrateRetryMax   = 2 * time.Minute
)

// forgetTimeout bounds the read of the migration states that starting a
// migration, and a reload that moves a storage version, wait for.
const forgetTimeout = 10 * time.Second

// migrations runs the storage migration of the served schemas, and
// starts it again when a reload moves a storage version (a
// serving.Follower).
type migrations struct {
	ctx   context.Context
	store *engine.Store
	log   *slog.Logger

	mu   sync.Mutex
	stop func()
}

var _ serving.Follower = (*migrations)(nil)

func (m *migrations) restart(reg *schemas.Registry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stop != nil {
		m.stop()
	}
	m.stop = startMigration(m.ctx, m.store, reg, m.log)
}

// Stop stops the migration under way; its progress is kept.
func (m *migrations) Stop() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stop != nil {
		m.stop()
		m.stop = nil
	}
}

// startMigration moves, in the background, every stored object that is not
// in its resource's storage version to it (engine.Store.MigrateStorage),
// retrying after storage errors. The returned function stops it and waits
// for it; progress is kept, so the next start continues.
//
// First, before it returns, it forgets the recorded migrations to other
// versions than reg's storage versions (engine.Store.ForgetStaleMigrations),
// so that one recorded as done is not believed after clients have written
// objects in reg's storage version; if that fails, the background run
// tries again first.
func startMigration(ctx context.Context, store *engine.Store, reg *schemas.Registry, log *slog.Logger) (stop func()) {
	forgotten := forgetStale(ctx, store, reg, log) == nil
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		delay := migrateRetryFirst
		for {
			var err error
			if !forgotten {
				if err = forgetStale(ctx, store, reg, log); err == nil {
					forgotten = true
				}
			}
			if err == nil {
				_, err = store.MigrateStorage(ctx, reg, engine.MigrateOptions{})
			}
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

// forgetStale is engine.Store.ForgetStaleMigrations, bounded by
// forgetTimeout.
func forgetStale(ctx context.Context, store *engine.Store, reg *schemas.Registry, log *slog.Logger) error {
	ctx, cancel := context.WithTimeout(ctx, forgetTimeout)
	defer cancel()
	_, err := store.ForgetStaleMigrations(ctx, reg)
	if err != nil {
		log.Warn("storage migration: cannot forget the migrations to other storage versions", "err", err)
	}
	return err
}

// BeforeSwap prepares a reload from old to next that moves the storage
// version of a resource, or serves one old did not: the migration under
// way stops (a migration to old's storage version must record nothing
// more once clients write in next's), and the recorded migrations to
// other versions than next's are forgotten before any client writes with
// next. If they cannot be, the reload fails and the migration of old
// runs again. AfterSwap starts the migration of next.
func (m *migrations) BeforeSwap(ctx context.Context, old, next *schemas.Registry) error {
	if !storageMoves(old, next) {
		return nil
	}
	m.Stop()
	if err := forgetStale(ctx, m.store, next, m.log); err != nil {
		m.restart(old)
		return fmt.Errorf("a storage version moves, and the recorded storage migrations cannot be read: %w", err)
	}
	return nil
}

// AfterSwap starts the migration of next again when a storage version
// moved, and makes sure one runs: BeforeSwap may have stopped it.
func (m *migrations) AfterSwap(_ context.Context, old, next *schemas.Registry) {
	if storageMoves(old, next) {
		m.restart(next)
	}
	m.ensureRunning(next)
}

// ensureRunning starts the migration of reg unless one runs.
func (m *migrations) ensureRunning(reg *schemas.Registry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stop == nil {
		m.stop = startMigration(m.ctx, m.store, reg, m.log)
	}
}

// storageMoves reports whether next serves a resource in another storage
// version than old does, or one that old does not serve.
func storageMoves(old, next *schemas.Registry) bool {
	for _, res := range next.Resources() {
		if !res.Served() {
			continue
		}
		ores := old.Resource(res.GroupResource())
		if !ores.Served() || ores.StorageVersion != res.StorageVersion {
			return true
		}
	}
	return false
}
