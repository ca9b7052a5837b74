// Package e2e holds specd's acceptance tests: they build the specd binary
// and a pinned kubectl (test/kubectl), start `specd serve` on free loopback
// ports with embedded or external etcd, and drive it the way users do — with
// kubectl, client-go and plain HTTP.
//
// Run them with
//
//	go test ./test/e2e/
//
// TestMain builds both binaries, and the example plugins (which the
// example schemas bind: every specd is started with --plugins), into a
// temporary directory unless the environment points at prebuilt ones:
//
//	SPECD_BIN=bin/specd KUBECTL=bin/kubectl PLUGINS_DIR=bin/plugins go test ./test/e2e/
//
// Helm (test/helm) and the test controller (test/controller) are built on
// first use, by `make helm` and `make controller`, unless $HELM and
// $CONTROLLER point at prebuilt ones.
//
// The tests only ever talk to 127.0.0.1, and every wait is bounded.
package e2e
