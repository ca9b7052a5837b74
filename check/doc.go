// Package check holds the checks of a schema set that both `specd check`
// and the server run, without a server of their own: loading a schema
// directory and reporting every problem with its file and JSON pointer;
// generating random valid objects from the schemas, whose conversion
// round trips prove a set's rules lossless (the server proves them at
// every load, serving/roundtrip.go); and comparing a schema set with a
// previous one under the compatibility rules of Kubernetes' "So you want
// to change the API?": fields, types, enums, defaults, validations (in
// allOf/anyOf/oneOf branches too), list and map types, printer columns,
// selectable fields, versions and resources (the server's reload gate,
// serving/gate.go, refuses on them).
//
// Whether objects are still stored in a version that is removed is asked
// of a StoredObjects, defined here and implemented on storage by
// engine/migrate (StoredObjects); without one, removing the storage
// version is an error.
//
// Results are a Report: load problems (the directory cannot be served) and
// findings (compatibility changes, each with a severity). `specd check`
// writes it as text or as JSON for CI pipelines.
package check
