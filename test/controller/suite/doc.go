// Package suite is a test suite as a user of specd writes one in a module
// of their own: TestMain starts specd with specdtest, from the CRDs of
// examples/crds, and the tests reach it with client-go's dynamic client.
// BenchmarkStart measures specdtest's start, to set beside envtest's
// (docs/performance.md). It needs the specd binary: $SPECD_BIN, or specd
// on the PATH.
package suite
