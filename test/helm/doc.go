// Package helm pins Helm for the acceptance tests (test/e2e/clients/helm_test.go):
// helm.sh/helm/v4's own cmd/helm, a tool of this module, which `make helm`
// builds into bin/helm. It is a module of its own so that none of Helm is
// a dependency of specd.
package helm
