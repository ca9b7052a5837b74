package operations

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/specd-io/specd/test/e2e/harness"
)

// startBenchTimeout bounds one start: a large project's CRDs take seconds
// to load on a busy machine.
const startBenchTimeout = 3 * time.Minute

// BenchmarkStartToReady measures what an operator's test suite waits for
// before its first test (docs/testing-controllers.md): from starting
// `specd serve --schemas <CRD files>` with a fresh data directory (so the
// embedded etcd and the certificates are new, as in a suite) until
// /readyz answers 200. The project with the most CRDs in the corpus is
// cluster-api (25); kyverno's 22 are the most bytes (5.7 MB).
func BenchmarkStartToReady(b *testing.B) {
	for name, dir := range map[string]string{
		"toys-2-crds":         filepath.Join(harness.RepoRoot, "examples", "crds"),
		"cluster-api-25-crds": filepath.Join(harness.RepoRoot, "testdata", "crds", "cluster-api", "crds"),
		"kyverno-22-crds":     filepath.Join(harness.RepoRoot, "testdata", "crds", "kyverno", "crds"),
	} {
		b.Run(name, func(b *testing.B) {
			var total time.Duration
			for range b.N {
				total += startToReady(b, dir)
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-to-ready/op")
		})
	}
}

// startToReady starts specd as a suite does, without plugins, and returns
// how long it took to be ready; it stops specd before returning.
func startToReady(b *testing.B, crds string) time.Duration {
	b.Helper()
	opts := harness.SpecdOptions{Schemas: crds, Secure: true, NoWait: true, Args: []string{"--plugins", b.TempDir()}}
	start := time.Now()
	s := harness.StartSpecd(b, opts)
	if err := s.WaitReady(startBenchTimeout); err != nil {
		b.Fatalf("specd serve --schemas %s: %v", crds, err)
	}
	took := time.Since(start)
	b.StopTimer()
	s.Stop(b)
	b.StartTimer()
	return took
}
