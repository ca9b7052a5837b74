// Package structural applies a structural OpenAPI schema, the kind a
// Kubernetes CustomResourceDefinition requires, to a decoded JSON object:
// pruning of unknown fields, defaulting, and validation that reports field
// errors the way kube-apiserver does.
//
// Objects are the trees sigs.k8s.io/json produces with preserved integers:
// map[string]any, []any, string, bool, int64, float64 and nil.
//
// Compile turns a kin-openapi schema (with $refs resolved) into an immutable
// tree, reporting every problem with a JSON pointer: unknown types, bad
// patterns, malformed x-kubernetes-* extensions, recursive $refs (which a
// structural schema cannot have), and defaults that kube-apiserver would
// refuse in a CRD (defaults with unknown fields or that fail their own
// schema). The resulting Schema is safe for concurrent use; patterns are
// compiled once.
//
// Compile applies kube's structural rules for value validations too:
// allOf, anyOf, oneOf and not may restrict values (and list properties
// and items without a type to restrict theirs) but not describe the
// structure, and what they name must be declared outside them
// (junctors.go).
//
// The semantics follow kube-apiserver for custom resources:
//
//   - Prune is apiextensions-apiserver's pruning: undeclared fields are
//     removed; x-kubernetes-preserve-unknown-fields keeps the unknown fields
//     of its object but still prunes below declared ones; the root and
//     x-kubernetes-embedded-resource objects keep apiVersion, kind and
//     metadata, and an embedded resource's metadata is reduced to the fields
//     of ObjectMeta. The root's metadata is left untouched.
//   - Default first removes nulls of fields that are neither nullable nor
//     defaulted, then sets the (deep-copied) default of every absent or
//     non-nullable null field, recursing into properties, additionalProperties
//     and items.
//   - Validate reproduces kube-openapi's validator as apiextensions-apiserver
//     uses it, error for error: types (with x-kubernetes-int-or-string and
//     nullable), enum, lengths, pattern, the formats kube validates (others
//     are ignored), numeric bounds and multipleOf, item and property counts,
//     uniqueItems, required, additionalProperties, allOf/anyOf/oneOf/not
//     (anyOf and oneOf report the closest alternative by kube-openapi's match
//     count); then the type meta and ObjectMeta of embedded resources; then
//     x-kubernetes-list-type set and map uniqueness. Errors are
//     field.ErrorList values built with apimachinery's constructors, so the
//     Status causes match kube-apiserver's. Every error is collected.
//
// At the root, apiVersion, kind and metadata are implied: the schema may
// declare them, but Validate and Default ignore them there, the engine
// validating type and object meta itself.
//
// CEL rules (x-kubernetes-validations) are only checked to be a list here:
// package celrules compiles and evaluates them, and a Schema carries them
// (WithRules) for ValidateRules, which the engine calls after Validate.
//
// On update (ValidateUpdate) the checks ratchet as kube's do: a value
// equal to the old value the schema pairs it with is not checked again
// (ratchet.go). x-kubernetes-map-type is checked but, like atomic lists,
// only matters to server-side apply.
package structural
