// Package chart tests specd's Helm chart (charts/specd) with the pinned
// Helm (test/helm, `make helm`): `helm lint`, and `helm template` of each
// way to run it (standalone, replicated, aggregated) with assertions on
// the objects it renders, and on the values it refuses.
//
// The tests use $HELM when it is set (`make test` sets it), and build
// Helm with `make helm` otherwise.
package chart
