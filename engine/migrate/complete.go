package migrate

import (
	"context"

	"github.com/specd-io/specd/schemas"
)

// migrateRegistry is Migrator.MigrateRegistry for the Runner: it leaves
// out the resources a run completed in their storage version since, and
// notes those it completes.
func (r *Runner) migrateRegistry(ctx context.Context, reg *schemas.Registry) error {
	for _, res := range reg.Resources() {
		if res.StoredWith != nil || r.completeIn(res) {
			continue // StoredWith's objects are migrated with it
		}
		result, err := r.migrator.MigrateResource(ctx, res, Options{})
		if err != nil {
			return err
		}
		if result.Complete {
			r.markComplete(res)
		}
	}
	return nil
}

func (r *Runner) completeIn(res *schemas.Resource) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.complete[res.GroupResource()]
	return ok && v == res.StorageVersion
}

func (r *Runner) markComplete(res *schemas.Resource) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.complete[res.GroupResource()] = res.StorageVersion
}

// keepComplete forgets the complete resources that a reload from old to
// next moves, serves anew or stops serving: only those that both serve
// in the same storage version stay complete. Objects written while old
// was served are in old's storage version, which for these is next's.
func (r *Runner) keepComplete(old, next *schemas.Registry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for gr, v := range r.complete {
		o, n := old.Resource(gr), next.Resource(gr)
		if !o.Served() || !n.Served() || o.StorageVersion != v || n.StorageVersion != v {
			delete(r.complete, gr)
		}
	}
}
