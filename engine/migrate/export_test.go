package migrate

import "github.com/specd-io/specd/schemas"

// StorageMoves is storageMoves, for the tests.
var StorageMoves = storageMoves

// Migrating is the registry the Runner migrates, or would when it runs;
// nil when it was stopped for a reload.
func (r *Runner) Migrating() *schemas.Registry {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.job.reg
}

// Done reports whether the Runner migrated its current job to the end.
func (r *Runner) Done() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.job.reg != nil && r.completed == r.job.id
}
