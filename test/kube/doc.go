// Package kube pins the Kubernetes components that specd's acceptance
// tests run beside it, built from the Go module proxy at the version this
// module requires: kube-apiserver and kube-controller-manager (tools of
// this module), the host cluster of the aggregation tests; and kube's e2e
// test binary (`go test -c k8s.io/kubernetes/test/e2e`, tools.go keeps its
// packages here), which runs Kubernetes' own conformance tests against
// specd. It is a module of its own so that none of Kubernetes is a
// dependency of specd.
package kube
