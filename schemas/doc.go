// Package schemas turns a directory of OpenAPI 3 files into an immutable
// Registry: every API group, version and resource that specd serves, with
// each version's compiled object schema.
//
// A Registry is never modified after Load returns it, so a server can swap
// one in atomically and every request sees a single consistent view; a
// Loader's registries share the groups, and the resources of a group,
// whose declarations did not change between its loads (reuse.go);
// Disable derives a copy with groups or versions switched off. A kind may
// be served in several versions, one of them its storage version; each
// version's conversion rules are kept as written, for package converters.
// Problems found while loading are collected, not returned one at a time:
// a LoadError names every file and JSON pointer that is wrong.
//
// The file format (one OpenAPI 3.0 document per group version, resources
// marked with x-specd-resource) is documented in docs/schema-format.md.
// A file of apiextensions.k8s.io/v1 CustomResourceDefinitions is read
// beside them (crd*.go, docs/crds.md): each CRD version becomes the
// declaration a specd file would make, so both pass the same checks.
// ParseCRD and Loader.LoadWith do the same for CRD objects of the API.
package schemas
