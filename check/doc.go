// Package check is what `specd check` runs, without a server: it loads a
// schema directory and reports every problem with its file and JSON
// pointer, generates random valid objects from the schemas (the input of
// the conversion round-trip proof), and compares a schema directory with
// a previous one under the compatibility rules of Kubernetes' "So you want
// to change the API?".
//
// Results are a Report: load problems (the directory cannot be served) and
// findings (compatibility changes, each with a severity). The command
// writes it as text or as JSON for CI pipelines.
package check
