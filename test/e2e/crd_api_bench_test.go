package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// benchCRD is CRD number i of group bench.example.com: a namespaced kind
// with a status subresource and a spec of ten fields, the size of a
// small operator's CRD.
func benchCRD(i int) *unstructured.Unstructured {
	props := map[string]any{}
	for f := range 10 {
		props[fmt.Sprintf("field%d", f)] = map[string]any{"type": "string", "description": "a field of the benchmark's kind"}
	}
	plural, kind := fmt.Sprintf("things%d", i), fmt.Sprintf("Thing%d", i)
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + ".bench.example.com"},
		"spec": map[string]any{
			"group": "bench.example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": plural, "kind": kind},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{
					"spec":   map[string]any{"type": "object", "properties": props},
					"status": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true},
				}}},
			}},
		},
	}}
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
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	crd := benchCRD(i)
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
//	go test ./test/e2e -run '^$' -bench BenchmarkCRDEstablished -benchtime 100x
func BenchmarkCRDEstablished(b *testing.B) {
	s := startSpecd(b, specdOptions{Schemas: b.TempDir()})
	dyn, err := dynamic.NewForConfig(restConfig(s))
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
// kube-apiserver's figures leave etcd out.
//
//	go test ./test/e2e -run '^$' -bench BenchmarkCRDMemory500 -benchtime 1x
func BenchmarkCRDMemory500(b *testing.B) {
	b.Run("embedded-etcd", func(b *testing.B) { crdMemory(b, nil) })
	b.Run("external-etcd", func(b *testing.B) { crdMemory(b, startEtcd(b)) })
}

func crdMemory(b *testing.B, etcd []string) {
	const crds = 500
	for b.Loop() {
		s := startSpecd(b, specdOptions{Schemas: b.TempDir(), EtcdServers: etcd})
		dyn, err := dynamic.NewForConfig(restConfig(s))
		if err != nil {
			b.Fatal(err)
		}
		createEstablished(b, dyn, crds) // one first, so the CRD machinery is warm
		rss0, heap0 := specdMemory(b, s)
		for i := range crds {
			createEstablished(b, dyn, i)
		}
		time.Sleep(2 * time.Second) // a collection after the last reload
		rss1, heap1 := specdMemory(b, s)
		b.ReportMetric(float64(rss1-rss0)/crds/1024, "KB-rss/CRD")
		b.ReportMetric(float64(heap1-heap0)/crds/1024, "KB-heap/CRD")
		// The CRD resource's watch cache window (a bounded number of
		// events and bytes) is full well before the 500th; what the next
		// CRDs add is what each one keeps, in heap and in resident set.
		for i := range crds / 2 {
			createEstablished(b, dyn, crds+1+i)
		}
		time.Sleep(2 * time.Second)
		rss2, heap2 := specdMemory(b, s)
		b.ReportMetric(float64(rss2-rss1)/(crds/2)/1024, "KB-rss/CRD-after-500")
		b.ReportMetric(float64(heap2-heap1)/(crds/2)/1024, "KB-heap/CRD-after-500")
		s.Stop(b)
	}
}

// specdMemory reads specd's resident set (/proc) and live heap
// (/metrics, after a collection).
func specdMemory(b *testing.B, s *specd) (rss, heap int64) {
	b.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			rss = kb * 1024
		}
	}
	collect(b, s)
	resp, err := s.Client.Get(s.URL + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, "go_memstats_heap_alloc_bytes "); ok {
			live, _ := strconv.ParseFloat(v, 64)
			heap = int64(live)
		}
	}
	return rss, heap
}

// collect has specd run a garbage collection: a heap profile with gc=1
// (specd serves profiles by default) collects before it samples.
func collect(b *testing.B, s *specd) {
	b.Helper()
	resp, err := s.Client.Get(s.URL + "/debug/pprof/heap?gc=1")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("heap profile: %s %v", resp.Status, err)
	}
}
