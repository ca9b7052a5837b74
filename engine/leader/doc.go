// Package leader owns the election among the specd replicas that share an
// etcd cluster, and with it the rule that background work (garbage
// collection, storage migration, namespace cleanup, the reconcilers,
// compaction) runs in one replica at a time: the elected one.
//
// Run campaigns on one etcd key prefix (Key) and runs the work while this
// replica leads; the work's context ends when the leadership is lost (the
// session's lease expired) or the replica stops, when it resigns so that
// another takes over at once. Each job keeps its progress in etcd or
// starts from what etcd holds, so a new leader takes the work up where the
// last one left it. Jobs is how specd serve starts its background work.
//
// A Signal carries a nudge from any replica to the elected one's job
// through a key in etcd: a delete through any replica starts the elected
// replica's garbage collection pass at once.
package leader
