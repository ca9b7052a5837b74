// Package memstorage is the storage contract (engine/storage) kept in
// memory: the store of the resources specd serves about itself
// (engine/statusapi), which are not stored in etcd because they describe
// one process (what it loaded, its plugins) or mirror what etcd already
// holds (migration progress).
//
// Storage keeps every value with the revision of its last write and a
// bounded window of past writes, so that it serves a list at a past
// revision and a watch from one as etcd does, and answers ErrCompacted
// before the window. Its revisions start at the time the Storage was
// made, in microseconds since the Unix epoch: a resourceVersion that
// another process handed out (another replica behind a load balancer,
// or this one before a restart) is then before the window (410 Gone) or
// after the current revision (a too large resourceVersion), and a
// client lists again, as kube clients do on either answer, instead of
// being sent another process's history.
//
// Route puts a Storage under a key prefix of another (etcd) storage, so
// that the engine, its watch caches and everything else above the
// storage contract serve the resources under that prefix as any other:
// lists, watches, Tables, selectors, RBAC and audit come from the one
// path kube clients already talk to.
package memstorage
