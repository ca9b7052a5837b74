package crds

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"

	"github.com/specd-io/specd/test/e2e/harness"
)

// BenchmarkCRDScale creates 1,000 CRDs (SPECD_BENCH_CRDS, a multiple of
// 100, to change it) of one group (each in a group of its own with
// SPECD_BENCH_CRD_GROUPS=each) through the API, one after another, each
// waited for until Established, and reports the mean
// time of the ten CRDs that end at the 10th, 100th and last
// (ms/CRD-at-N): what a CRD costs should not grow with the CRDs already
// served. It also reports the resident set's growth per CRD from the
// 100th to the last, and logs, every 100 CRDs, their mean time and
// the resident set (the rows of the plot in docs/performance.md), and
// the server's CPU per CRD (process_cpu_seconds_total), which the load
// of a shared machine moves less than the time.
//
//	go test ./test/e2e/crds -run '^$' -bench BenchmarkCRDScale -benchtime 1x -timeout 1800s
func BenchmarkCRDScale(b *testing.B) {
	crds := benchCRDs(b)
	group := benchGroup(b)
	for b.Loop() {
		s := harness.StartSpecd(b, harness.SpecdOptions{Schemas: b.TempDir()})
		dyn, err := dynamic.NewForConfig(harness.RestConfig(s))
		if err != nil {
			b.Fatal(err)
		}
		took := make([]time.Duration, crds+1)
		var rss100 int64
		cpu := make([]float64, 0, crds/100+1)
		cpu = append(cpu, serverCPU(b, s))
		for n := 1; n <= crds; n++ {
			start := time.Now()
			createEstablishedCRD(b, dyn, benchCRDIn(n, group(n)))
			took[n] = time.Since(start)
			if n%100 == 0 {
				rss := residentSet(b, s.Cmd.Process.Pid)
				cpu = append(cpu, serverCPU(b, s))
				b.Logf("CRDs %4d-%4d: mean %6.1f ms; server CPU %5.1f ms/CRD; rss %d MiB", n-99, n, meanMillis(took[n-99:n+1]),
					(cpu[n/100]-cpu[n/100-1])*10, rss>>20)
				if n == 100 {
					rss100 = rss
				}
			}
		}
		for _, n := range []int{10, 100, crds} {
			b.ReportMetric(meanMillis(took[n-9:n+1]), fmt.Sprintf("ms/CRD-at-%d", n))
		}
		b.ReportMetric((cpu[len(cpu)-1]-cpu[len(cpu)-2])*10, "cpu-ms/CRD-last-100")
		b.ReportMetric(float64(residentSet(b, s.Cmd.Process.Pid)-rss100)/float64(crds-100)/1024, "KB-rss/CRD")
		s.Stop(b)
	}
}

// benchCRDs is SPECD_BENCH_CRDS, 1,000 by default.
func benchCRDs(b *testing.B) int {
	v := os.Getenv("SPECD_BENCH_CRDS")
	if v == "" {
		return 1000
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 200 || n%100 != 0 {
		b.Fatalf("SPECD_BENCH_CRDS=%q: want a multiple of 100, at least 200", v)
	}
	return n
}

// benchGroup is the group of the nth CRD: bench.example.com, or
// g<n>.bench.example.com with SPECD_BENCH_CRD_GROUPS=each.
func benchGroup(b *testing.B) func(n int) string {
	switch v := os.Getenv("SPECD_BENCH_CRD_GROUPS"); v {
	case "":
		return func(int) string { return "bench.example.com" }
	case "each":
		return func(n int) string { return fmt.Sprintf("g%d.bench.example.com", n) }
	default:
		b.Fatalf("SPECD_BENCH_CRD_GROUPS=%q: want each, or nothing for one group", v)
		return nil
	}
}

// meanMillis is the mean of d in milliseconds.
func meanMillis(d []time.Duration) float64 {
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return float64(sum.Microseconds()) / 1000 / float64(len(d))
}

// serverCPU is specd's process_cpu_seconds_total.
func serverCPU(b *testing.B, s *harness.Specd) float64 {
	b.Helper()
	v, ok := gauges(b, s)["process_cpu_seconds_total"]
	if !ok {
		b.Fatal("no process_cpu_seconds_total in /metrics")
	}
	return v
}
