// Package check is what `specd check` runs, without a server: it loads a
// schema directory and reports every problem with its file and JSON
// pointer, generates random valid objects from the schemas (the input of
// the conversion round-trip proof), and compares a schema directory with
// a previous one under the compatibility rules of Kubernetes' "So you want
// to change the API?": fields, types, enums, defaults, validations (in
// allOf/anyOf/oneOf branches too), list and map types, printer columns,
// selectable fields, versions and resources.
//
// Whether objects are still stored in a version that is removed is asked
// of a StoredObjects, defined here and implemented by the command on etcd
// (CompareStored); without one, removing the storage version is an error.
//
// Results are a Report: load problems (the directory cannot be served) and
// findings (compatibility changes, each with a severity). The command
// writes it as text or as JSON for CI pipelines.
package check
