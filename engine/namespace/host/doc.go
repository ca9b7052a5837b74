// Package host answers the engine's NamespaceCheck from the namespaces
// of a host cluster, for specd serving aggregated: the namespaces its
// objects live in are the cluster's, so a create in a namespace the host
// does not have is kube's 404, and one in a namespace the host is
// deleting kube's 403 (namespace.NotFound, namespace.Terminating).
//
// An informer keeps the host's namespaces; a namespace it has not seen
// is read from the host, as kube's NamespaceLifecycle admission does, so
// a create right after its namespace's is never refused.
package host
