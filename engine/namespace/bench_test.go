package namespace_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
)

// benchResources are the five resources BenchmarkDeleteNamespace fills:
// two built-in (core group) and three declared.
var benchResources = []struct{ group, plural, kind, apiVersion string }{
	{"", "configmaps", "ConfigMap", "v1"},
	{"", "secrets", "Secret", "v1"},
	{"tools.example.com", "hammers", "Hammer", "tools.example.com/v1"},
	{"things.example.com", "things", "Thing", "things.example.com/v1alpha1"},
	{"gadgets.example.com", "gadgets", "Gadget", "gadgets.example.com/v1"},
}

// fill creates n objects in namespace ns, spread over benchResources,
// eight writers at once.
func (e *env) fill(b *testing.B, ns string, n int) {
	b.Helper()
	var wg sync.WaitGroup
	var failed atomic.Value
	next := atomic.Int64{}
	for range 8 {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				r := benchResources[i%len(benchResources)]
				body := fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":"o%d"}}`, r.apiVersion, r.kind, i)
				if _, err := e.create(ns, r.group, r.plural, body); err != nil {
					failed.Store(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		b.Fatal(err)
	}
}

// BenchmarkDeleteNamespace measures kube's namespace deletion through
// the controller: from the DELETE of a namespace holding 10,000 objects
// across 5 resources until the namespace is gone, on the embedded etcd
// of the tests (no fsync).
//
//	go test ./engine/namespace/ -run XXX -bench BenchmarkDeleteNamespace -benchtime 3x
func BenchmarkDeleteNamespace(b *testing.B) {
	const objects = 10000
	e := newEnv(b)
	e.start(b, true)
	ctx := context.Background()
	nsRV := e.rv("", "namespaces")
	var total, cpu time.Duration
	for i := range b.N {
		b.StopTimer()
		name := fmt.Sprintf("bench-%d", i)
		e.mustCreate(b, "", "", "namespaces", namespaceJSON(name))
		e.fill(b, name, objects)
		b.StartTimer()
		start, cpuStart := time.Now(), cpuTime(b)
		if _, err := e.store.Delete(ctx, engine.Ref{Version: nsRV, Namespace: "", Name: name}, engine.DeleteOptions{}); err != nil {
			b.Fatal(err)
		}
		for {
			_, err := e.get("", "", "namespaces", name)
			if apierrors.IsNotFound(err) {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		total += time.Since(start)
		cpu += cpuTime(b) - cpuStart
	}
	b.ReportMetric(float64(objects*b.N)/total.Seconds(), "objects/s")
	// The process's CPU time (specd's and the embedded etcd's) is what a
	// loaded machine changes least.
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}

// countingStore counts the namespace reads a Lifecycle makes.
type countingStore struct {
	engine.Reader
	gets atomic.Int64
}

func (c *countingStore) Get(ctx context.Context, ref engine.Ref) ([]byte, error) {
	c.gets.Add(1)
	return c.Reader.Get(ctx, ref)
}

// BenchmarkNamespaceCheck measures the check every create of a
// namespaced object makes (Lifecycle.CheckNamespace), from many goroutines, with
// 1,000 namespaces cached; it fails if the check reads storage.
//
//	go test ./engine/namespace/ -run XXX -bench BenchmarkNamespaceCheck
func BenchmarkNamespaceCheck(b *testing.B) {
	e := newEnv(b)
	names := make([]string, 1000)
	for i := range names {
		names[i] = fmt.Sprintf("ns-%d", i)
		e.mustCreate(b, "", "", "namespaces", namespaceJSON(names[i]))
	}
	counting := &countingStore{Reader: e.store}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	defer func() { cancel(); <-done }()
	go func() { defer close(done); e.life.Run(ctx, e.store) }()
	eventually(b, "namespaces cached", e.life.Synced)
	rv := e.rv("tools.example.com", "hammers")
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if err := e.life.CheckNamespace(ctx, counting, engine.Ref{Version: rv, Namespace: names[i%len(names)], Name: "h"}); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
	b.StopTimer()
	if n := counting.gets.Load(); n > 0 {
		b.Fatalf("the check read storage %d times", n)
	}
}

// cpuTime is the CPU time the process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
