// Package chart tests specd's Helm chart (charts/specd) with the pinned
// Helm (test/helm, `make helm`): `helm lint`, and `helm template` of each
// way to run it (standalone, replicated, aggregated) with assertions on
// the objects it renders, and on the values it refuses.
//
// TestDryRunServer sends every rendering to a real kube-apiserver
// (internal/testkube) with `kubectl apply --dry-run=server`.
//
// The tests use $HELM, $KUBECTL and $KUBE_APISERVER when they are set
// (`make test` sets the first two), and build what is missing otherwise:
// Helm and kubectl with make, kube-apiserver with go build in test/kube.
package chart
