// Package chart tests specd's Helm chart (charts/specd) with the pinned
// Helm (test/helm, `make helm`): `helm lint`, and `helm template` of each
// way to run it (standalone, replicated, aggregated) with assertions on
// the objects it renders, and on the values it refuses.
//
// TestDryRunServer sends every rendering to a real kube-apiserver
// (test/testkube) with `kubectl apply --dry-run=server`, and
// TestPodServes and TestPodsServeReplicated run specd with the flags of
// the rendered pods, their volumes laid out as the kubelet lays them out
// (the replicated ones on an etcd that wants client certificates).
//
// The tests use $HELM, $KUBECTL, $SPECD_BIN, $PLUGINS_DIR and
// $KUBE_APISERVER when they are set (`make test` sets them), and build
// what is missing otherwise: Helm, kubectl and kube-apiserver with make,
// specd and the plugins with go build.
package chart
