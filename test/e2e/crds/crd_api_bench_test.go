package crds

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/loadtest"
	"github.com/specd-io/specd/test/e2e/harness"
)

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// benchCRD is CRD number i of group bench.example.com: a namespaced kind
// with a status subresource and a spec of ten fields, the size of a
// small operator's CRD.
func benchCRD(i int) *unstructured.Unstructured {
	return benchCRDIn(i, "bench.example.com")
}

// benchCRDIn is benchCRD in group: the CRD `specd bench --phases crds`
// creates (loadtest.CRD), so that the benchmarks and the load tool
// measure the same thing.
func benchCRDIn(i int, group string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(loadtest.CRD(i, group)); err != nil {
		panic(err) // loadtest.CRD is valid JSON of one object
	}
	return u
}

// established waits, with a watch, until the CRD named name is
// Established.
func established(ctx context.Context, dyn dynamic.Interface, name, from string) error {
	w, err := dyn.Resource(crdGVR).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name, ResourceVersion: from})
	if err != nil {
		return err
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		u, ok := ev.Object.(*unstructured.Unstructured)
		if ok && isEstablished(u) {
			return nil
		}
	}
	return fmt.Errorf("%s: the watch ended before it was Established", name)
}

func isEstablished(u *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}

// createEstablished creates CRD i and waits until it is Established.
func createEstablished(b *testing.B, dyn dynamic.Interface, i int) {
	createEstablishedCRD(b, dyn, benchCRD(i))
}

// createEstablishedCRD creates crd and waits until it is Established.
func createEstablishedCRD(b *testing.B, dyn dynamic.Interface, crd *unstructured.Unstructured) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	created, err := dyn.Resource(crdGVR).Create(ctx, crd, metav1.CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if err := established(ctx, dyn, crd.GetName(), created.GetResourceVersion()); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCRDEstablished measures a CRD's create -> Established through
// the API: the naming controller's status write, the feed's reload of
// the schemas, and the Established write, seen by a watch. The registry
// grows by one CRD per operation; p50 and p99 are reported.
//
//	go test ./test/e2e/crds -run '^$' -bench BenchmarkCRDEstablished -benchtime 100x
func BenchmarkCRDEstablished(b *testing.B) {
	s := harness.StartSpecd(b, harness.SpecdOptions{Schemas: b.TempDir()})
	dyn, err := dynamic.NewForConfig(harness.RestConfig(s))
	if err != nil {
		b.Fatal(err)
	}
	var took []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		createEstablished(b, dyn, i)
		took = append(took, time.Since(start))
		i++
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-p50")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "ms-p99")
}

// BenchmarkCRDMemory500 applies 500 CRDs through the API, each waited
// for until Established, and reports what specd's memory grew by per
// CRD: the resident set, and the live heap (go_memstats_heap_alloc_bytes
// right after a collection, which /debug/pprof/heap?gc=1 runs). With
// the embedded etcd, etcd's memory (its raft log and the revisions not yet
// compacted) is in specd's process; with an external etcd it is not, as
// kube-apiserver's figures leave etcd out. It reports the growth over
// the first 500 (/CRD) and over 250 more (/CRD-after-500).
//
//	go test ./test/e2e/crds -run '^$' -bench BenchmarkCRDMemory500 -benchtime 1x
func BenchmarkCRDMemory500(b *testing.B) {
	b.Run("embedded-etcd", func(b *testing.B) { crdMemory(b, nil) })
	b.Run("external-etcd", func(b *testing.B) { crdMemory(b, harness.StartEtcd(b)) })
}

func crdMemory(b *testing.B, etcd []string) {
	const crds = 500
	for b.Loop() {
		s := harness.StartSpecd(b, harness.SpecdOptions{Schemas: b.TempDir(), EtcdServers: etcd})
		dyn, err := dynamic.NewForConfig(harness.RestConfig(s))
		if err != nil {
			b.Fatal(err)
		}
		createEstablished(b, dyn, crds) // one first, so the CRD machinery is warm
		m0 := specdMemory(b, s, "0")
		m500 := createCRDs(b, s, dyn, 0, crds, "500")
		m0.report(b, m500, crds, "/CRD")
		// The CRD resource's watch cache window (a bounded number of
		// events and bytes) is full well before the 500th; what the next
		// CRDs add is what each one keeps, in heap and in resident set.
		m750 := createCRDs(b, s, dyn, crds+1, crds/2, "750")
		m500.report(b, m750, crds/2, "/CRD-after-500")
		s.Stop(b)
	}
}

// createCRDs creates n CRDs numbered from first, each until Established,
// and reads specd's memory after them, labelled label.
func createCRDs(b *testing.B, s *harness.Specd, dyn dynamic.Interface, first, n int, label string) specdMem {
	for i := range n {
		createEstablished(b, dyn, first+i)
	}
	time.Sleep(2 * time.Second) // a collection after the last reload
	return specdMemory(b, s, label)
}

// specdMem is specd's resident set and live heap, in bytes.
type specdMem struct{ rss, heap int64 }

// report reports what memory grew by from m to after, per each of n CRDs,
// as KB-rss and KB-heap with unit's suffix.
func (m specdMem) report(b *testing.B, after specdMem, n int, unit string) {
	b.ReportMetric(float64(after.rss-m.rss)/float64(n)/1024, "KB-rss"+unit)
	b.ReportMetric(float64(after.heap-m.heap)/float64(n)/1024, "KB-heap"+unit)
}

// specdMemory reads specd's resident set (/proc) and live heap
// (/metrics, after a collection); label names the heap profile collect
// may keep. It logs the runtime's gauges that tell the two apart.
func specdMemory(b *testing.B, s *harness.Specd, label string) specdMem {
	b.Helper()
	rss := residentSet(b, s.Cmd.Process.Pid)
	collect(b, s, label)
	g := gauges(b, s)
	b.Logf("at %s: rss %d KB, goroutines %.0f, watch caches %.0f; heap alloc %.0f KB, "+
		"inuse %.0f KB, idle %.0f KB (released %.0f KB); stacks %.0f KB; runtime sys %.0f KB",
		label, rss>>10, g["go_goroutines"], g["specd_watch_caches"], g["go_memstats_heap_alloc_bytes"]/1024,
		g["go_memstats_heap_inuse_bytes"]/1024, g["go_memstats_heap_idle_bytes"]/1024,
		g["go_memstats_heap_released_bytes"]/1024, g["go_memstats_stack_inuse_bytes"]/1024,
		g["go_memstats_sys_bytes"]/1024)
	return specdMem{rss: rss, heap: int64(g["go_memstats_heap_alloc_bytes"])}
}

// residentSet is process pid's VmRSS, in bytes.
func residentSet(b *testing.B, pid int) int64 {
	b.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				b.Fatalf("VmRSS: %v", err)
			}
			return kb << 10
		}
	}
	b.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}

// gauges are specd's unlabelled series in /metrics, by name.
func gauges(b *testing.B, s *harness.Specd) map[string]float64 {
	b.Helper()
	body := testhttp.Do(b, s.Client, testhttp.Request{URL: s.URL + "/metrics"}).Body
	out := map[string]float64{}
	for _, line := range strings.Split(body, "\n") {
		name, v, ok := strings.Cut(line, " ")
		if ok && !strings.HasPrefix(name, "#") && !strings.Contains(name, "{") {
			out[name], _ = strconv.ParseFloat(v, 64)
		}
	}
	return out
}

// collect has specd run a garbage collection: a heap profile with gc=1
// (specd serves profiles by default) collects before it samples. With
// $SPECD_BENCH_HEAP_DIR set the profile is kept there as heap-<label>.pb.gz,
// so that two of them can be compared (go tool pprof -diff_base) to see
// where the memory went.
func collect(b *testing.B, s *harness.Specd, label string) {
	b.Helper()
	r := testhttp.Do(b, s.Client, testhttp.Request{URL: s.URL + "/debug/pprof/heap?gc=1"})
	if r.Code != http.StatusOK {
		b.Fatalf("heap profile: %d %s", r.Code, r.Body)
	}
	if dir := os.Getenv("SPECD_BENCH_HEAP_DIR"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, "heap-"+label+".pb.gz"), []byte(r.Body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}
