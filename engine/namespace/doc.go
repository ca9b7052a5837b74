// Package namespace is Namespace lifecycle as kube-apiserver and kube's
// namespace controller have it, for every namespaced resource specd
// serves, built-in or declared:
//
//   - Lifecycle keeps a cache of every namespace, fed by a watch
//     (informer.Run), and answers the engine's NamespaceCheck from it:
//     a create in a namespace that does not exist is kube's 404, one in a
//     Terminating namespace kube's 403 with the NamespaceTerminating cause.
//     A namespace the cache has not seen yet is read from storage, as
//     kube's NamespaceLifecycle admission does, so a create right after
//     its namespace's is never refused.
//   - Lifecycle.Strategies is the Namespace's behaviour in the write path
//     (engine.Strategy): spec.finalizers [kubernetes] and phase Active on
//     create, the kubernetes.io/metadata.name label on every write, the
//     finalize subresource, Terminating on delete, the system namespaces
//     that may not be deleted, a namespace kept until spec.finalizers is
//     empty, and kube's status strategy: status only through /status,
//     which may change the metadata but not the spec.
//   - Bootstrap creates default, kube-system, kube-public and
//     kube-node-lease, and a Namespace for every namespace that already
//     holds objects (a data dir from before namespaces were served).
//   - Controller is kube's namespace controller: it deletes every object
//     in a Terminating namespace, resource by resource, waits for those
//     that finalizers hold, reports what blocks in the namespace's
//     conditions, and then removes the kubernetes finalizer, which deletes
//     the namespace. It runs on the elected leader only.
//
// The Namespace resource is looked up in the registry by group "" and
// plural "namespaces"; nothing here works while it is not served.
package namespace
