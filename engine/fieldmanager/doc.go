// Package fieldmanager tracks metadata.managedFields and serves server-side
// apply for specd's resources with sigs.k8s.io/structured-merge-diff, the
// library kube-apiserver uses, on a type built from the resource's
// structural schema. It works on decoded JSON trees (map[string]any) and
// metav1.ManagedFieldsEntry values; the engine decides when to call it.
package fieldmanager
