// Package background owns the running of specd's background work: the
// jobs that act on stored objects apart from any request (the garbage
// collector, the storage version migration, the namespace controller). A
// Group is given its jobs when it is made and runs them all for as long as
// the context of Run lasts, so that one owner decides when they run:
// engine/leader calls Run only while this replica leads the election
// among the replicas on one etcd.
//
// Watch is the one watch loop that background work and the caches
// requests read from share: it feeds a Feed with every object of a
// resource, then each change, and resumes after the last event it applied
// when a watch ends, or starts over with every object when it cannot.
package background
