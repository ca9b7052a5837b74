// Package conformance runs Kubernetes' own e2e tests, kube's e2e test
// binary (k8s.io/kubernetes/test/e2e built with `go test -c`, pinned by
// test/kube), against a specd that serves only its built-in kinds:
//
//   - StartSpecd starts that specd, with an embedded etcd, TLS and
//     --crd-gate=false, and waits until the admin kubeconfig it writes
//     reaches it;
//   - Suite is one run of the e2e binary, with the flags that skip the
//     waits for nodes and pods specd does not serve, writing a JUnit
//     report;
//   - Focus is what docs/conformance.md covers: every [sig-api-machinery]
//     test, and the [sig-auth], [sig-node] and [sig-instrumentation] tests
//     that use only ConfigMaps, Secrets, Events, Leases, RBAC or the
//     reviews; Passing (passing.txt) the tests of the focus that pass;
//   - ReadJUnit, ReadNotes, Rows and Markdown turn a run's report and the
//     triage notes (notes.txt) into docs/conformance.md's table, which
//     ReadTable reads back.
//
// TestPassing (build tag conformance; `make conformance-ci`, which CI
// runs) runs the Passing tests and fails if one does not pass;
// TestDocTable checks that the page's table, its counts, README.md's
// counts and passing.txt agree with each other and with the notes.
// cmd/conformance (`make conformance`) runs the focus, skipping the tests
// the notes say are not applicable, and writes the table.
package conformance
