// Package structural applies a structural OpenAPI schema, the kind a
// Kubernetes CustomResourceDefinition requires, to a decoded JSON object:
// pruning of unknown fields, defaulting, and validation that reports field
// errors the way kube-apiserver does.
//
// Objects are the trees sigs.k8s.io/json produces with preserved integers:
// map[string]any, []any, string, bool, int64, float64 and nil.
package structural
