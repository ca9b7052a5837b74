// Package harness is what specd's acceptance tests (the packages beside
// it under test/e2e) share: it starts `specd serve` on a free loopback
// port with embedded or external etcd (StartSpecd), runs a pinned kubectl
// against it (NewKubectl), and holds the example schemas' fixtures, the
// certificate authorities and OIDC issuer of the auth tests, in-process
// etcd members, and the waits and checks the tests have in common. Their
// HTTP requests go through internal/testhttp.
//
// Every e2e package's TestMain is Main, which builds specd and the
// example plugins (which the example schemas bind: every specd is started
// with --plugins) into a temporary directory, and kubectl into bin/e2e,
// where every package finds it, unless the environment points at
// prebuilt ones:
//
//	SPECD_BIN=bin/specd KUBECTL=bin/kubectl PLUGINS_DIR=bin/plugins go test ./test/e2e/...
//
// Helm (test/helm) and the test controller (test/controller) are built
// into bin/e2e on first use, by `make helm` and `make controller`, unless
// $HELM and $CONTROLLER point at prebuilt ones.
//
// The tests only ever talk to 127.0.0.1, and every wait is bounded. Only
// tests import this package.
package harness
