// Package specdtest starts specd for a Go test, as envtest's Environment
// starts a kube-apiserver and etcd: `specd serve` of a directory of
// schema or CustomResourceDefinition files, in a data directory of its
// own, on a port the kernel picks, and a *rest.Config for its admin once
// /readyz answers 200.
//
// It runs the specd binary (Environment.Binary, else $SPECD_BIN, else
// specd on the PATH) rather than specd in the test's process: a test
// then depends on client-go only, and specd's log and signals stay its
// own. It imports nothing else of specd, so a user's module needs no more
// of specd than this package.
//
//	func TestMain(m *testing.M) {
//		env := &specdtest.Environment{Schemas: "../../config/crd/bases"}
//		cfg, err := env.Start(context.Background())
//		...
//		code := m.Run()
//		env.Stop()
//		os.Exit(code)
//	}
//
// or, for one test, cfg := specdtest.Start(t, "testdata/crds"), which
// stops specd when the test ends.
package specdtest
