// Package rootca publishes the CA that verifies specd's serving
// certificate as the ConfigMap kube-root-ca.crt (key ca.crt) in every
// namespace, as kube-controller-manager's root CA publisher does, so that
// a client in a namespace finds it where Kubernetes puts it: the one
// Kubernetes' conformance tests look for.
//
// Publisher runs on the elected replica. It follows the namespaces and
// the ConfigMaps of that name, creates the ConfigMap in each namespace
// that is not being deleted, and writes it back when it is deleted or
// changed.
package rootca
