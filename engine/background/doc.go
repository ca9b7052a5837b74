// Package background owns the running of specd's background work: the
// jobs that act on stored objects apart from any request (the garbage
// collector, the storage version migration, the namespace controller). A
// Group is given its jobs when it is made and runs them all for as long as
// the context of Run lasts, so that one owner decides when they run:
// engine/leader calls Run only while this replica leads the election
// among the replicas on one etcd. A Group's Start is how a job runs on
// every replica instead (the CRD feed, the RBAC and namespace caches):
// cmd/specd starts those; Sleep is their pause.
package background
