package migrate

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

// Retry delays of a storage migration that stopped on a storage error
// (etcd unreachable): it continues where it stopped.
const (
	retryFirst = 5 * time.Second
	retryMax   = 2 * time.Minute
)

// forgetTimeout bounds the read of the migration states that making a
// Runner, and a reload that moves a storage version, wait for.
const forgetTimeout = 10 * time.Second

// Runner migrates the served registry in the background (Run), retrying
// after storage errors, and follows schema reloads (BeforeSwap,
// AfterSwap): a reload that moves a storage version, or serves a resource
// anew, stops the migration under way and starts that of the new
// registry. Progress is kept in storage, so a Run that ends and a later
// one continue where the first stopped.
type Runner struct {
	migrator *Migrator
	log      *slog.Logger
	// wake tells Run that the job changed.
	wake chan struct{}

	mu        sync.Mutex
	job       job
	completed uint64 // the id of the last job migrated to the end
	running   *run   // the run under way; nil when none
	// complete are the resources (GroupResource) whose objects a run
	// has left all in the storage version (the value) since it was
	// last moved: a job of a reload that serves one resource more does
	// not read every object of the others again.
	complete map[string]string
}

// job is the registry Run migrates; every change makes a new one.
type job struct {
	id  uint64
	reg *schemas.Registry // nil: none (a reload is being prepared)
	// forgotten: the stale states of reg were forgotten already.
	forgotten bool
}

// run is Run migrating one job.
type run struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when the run has stopped
}

// NewRunner returns a Runner of the objects upkeep reaches that migrates first, the
// registry served from now on. Before it returns, it forgets the recorded
// migrations to other versions than first's storage versions
// (Migrator.ForgetStale), so that one recorded as done is not believed
// after clients have written objects in first's storage version; if that
// fails, Run tries again before it migrates.
func NewRunner(ctx context.Context, upkeep *engine.Upkeep, first *schemas.Registry, log *slog.Logger) *Runner {
	r := &Runner{migrator: New(upkeep, log), wake: make(chan struct{}, 1), complete: map[string]string{}}
	r.log = r.migrator.log
	r.job = job{id: 1, reg: first, forgotten: r.forgetStale(ctx, first) == nil}
	return r
}

// Run migrates the registry of the current job until it is done, retrying
// after storage errors, and again whenever a reload replaces the job,
// until ctx ends; then it stops the migration under way (its progress is
// kept) and returns. Run must not be called twice at once.
func (r *Runner) Run(ctx context.Context) {
	for {
		if j, cur, rctx := r.begin(ctx); cur != nil {
			r.end(j, cur, r.migrate(rctx, j))
		}
		select {
		case <-ctx.Done():
			return
		case <-r.wake:
		}
	}
}

// begin starts a run of the current job, unless there is none, it is
// done, or ctx has ended.
func (r *Runner) begin(ctx context.Context) (job, *run, context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.job.reg == nil || r.completed == r.job.id || ctx.Err() != nil {
		return job{}, nil, nil
	}
	rctx, cancel := context.WithCancel(ctx)
	r.running = &run{cancel: cancel, done: make(chan struct{})}
	return r.job, r.running, rctx
}

// end records that cur, a run of j, stopped; completed when it migrated
// every resource.
func (r *Runner) end(j job, cur *run, completed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if completed {
		r.completed = j.id
	}
	r.running = nil
	cur.cancel()
	close(cur.done)
}

// migrate migrates j's registry, retrying after errors with a growing
// delay, until it is done (true) or ctx ends (false).
func (r *Runner) migrate(ctx context.Context, j job) bool {
	delay := retryFirst
	forgotten := j.forgotten
	for {
		var err error
		if !forgotten {
			err = r.forgetStale(ctx, j.reg)
			forgotten = err == nil
		}
		if err == nil {
			err = r.migrateRegistry(ctx, j.reg)
		}
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		r.log.Warn("storage migration failed; retrying", "in", delay, "err", err)
		select {
		case <-ctx.Done():
			return false
		case <-time.After(delay):
		}
		delay = min(2*delay, retryMax)
	}
}

// forgetStale is Migrator.ForgetStale, bounded by forgetTimeout.
func (r *Runner) forgetStale(ctx context.Context, reg *schemas.Registry) error {
	ctx, cancel := context.WithTimeout(ctx, forgetTimeout)
	defer cancel()
	if _, err := r.migrator.ForgetStale(ctx, reg); err != nil {
		r.log.Warn("storage migration: cannot forget the migrations to other storage versions", "err", err)
		return err
	}
	return nil
}

// replace makes reg (nil: none) the registry Run migrates: it stops the
// run under way, waits for it to stop, and wakes Run.
func (r *Runner) replace(reg *schemas.Registry) {
	r.mu.Lock()
	r.job = job{id: r.job.id + 1, reg: reg}
	cur := r.running
	r.mu.Unlock()
	if cur != nil {
		cur.cancel()
		<-cur.done
	}
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// BeforeSwap prepares a reload from old to next that moves the storage
// version of a resource, or serves one old did not: the migration under
// way stops (a migration to old's storage version must record nothing
// more once clients write in next's), and the recorded migrations to
// other versions than next's are forgotten before any client writes with
// next. If they cannot be, the reload fails and the migration of old runs
// again. AfterSwap starts the migration of next.
func (r *Runner) BeforeSwap(ctx context.Context, old, next *schemas.Registry) error {
	if !storageMoves(old, next) {
		return nil
	}
	r.replace(nil)
	if err := r.forgetStale(ctx, next); err != nil {
		r.replace(old)
		return fmt.Errorf("a storage version moves, and the recorded storage migrations cannot be read: %w", err)
	}
	return nil
}

// AfterSwap starts the migration of next, now served, when the reload
// moved a storage version or served a resource anew, or when none runs
// (BeforeSwap stopped it).
func (r *Runner) AfterSwap(_ context.Context, old, next *schemas.Registry) {
	r.mu.Lock()
	stopped := r.job.reg == nil
	r.mu.Unlock()
	if stopped || storageMoves(old, next) {
		r.keepComplete(old, next)
		r.replace(next)
	}
}

// storageMoves reports whether next serves a resource in another storage
// version than old does, or one that old does not serve. Only the
// resources the reload changed can (schemas.EachChanged).
func storageMoves(old, next *schemas.Registry) bool {
	moves := false
	schemas.EachChanged(old, next, func(o, n *schemas.Resource) {
		moves = moves || n.Served() && (!o.Served() || o.StorageVersion != n.StorageVersion)
	})
	return moves
}
