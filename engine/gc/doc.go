// Package gc is specd's garbage collector of ownerReferences, across
// resources and groups, as Kubernetes' garbage collector behaves:
//
//   - a dependent whose owners are all gone (no object with the owner's
//     group, kind, namespace, name and uid) is deleted; an owner that
//     exists, or whose kind specd does not serve, always keeps it;
//   - an owner deleted with propagationPolicy=Foreground carries the
//     foregroundDeletion finalizer: its dependents are deleted, and it goes
//     when no dependent with blockOwnerDeletion remains;
//   - an owner deleted with propagationPolicy=Orphan carries the orphan
//     finalizer: its dependents lose their ownerReferences to it, then it
//     goes;
//   - a cycle of blocking references (a owns b owns a) deleted in the
//     foreground is broken as Kubernetes breaks it: a dependent deleted in
//     the foreground whose own dependent already waits for its dependents
//     first has its references made non-blocking (Action.Unblock).
//
// All state lives in etcd: a Collector keeps nothing between passes. A pass
// reads every object of every served resource at one revision (metadata
// only), plans (Plan, a pure function) and acts, each write conditional on
// the revision it read. A Collector runs a pass at start, after every delete
// (Trigger) and every Interval, and repeats passes while they act, so a
// cascade finishes in as many passes as it is deep, also after a restart.
package gc
