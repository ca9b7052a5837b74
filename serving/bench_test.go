package serving

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/internal/schemagen"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/server"
)

// The many-types benchmarks (docs/performance.md): 1,000 resources in 200
// group versions, from internal/schemagen.

func manyTypes(b *testing.B) (dir string, files []string) {
	b.Helper()
	dir = b.TempDir()
	files, err := schemagen.Write(dir, schemagen.Standard)
	if err != nil {
		b.Fatal(err)
	}
	return dir, files
}

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// benchSet is a started Set of dir, as specd serve starts one; the
// caller closes it.
func benchSet(b *testing.B, dir string) *Set {
	b.Helper()
	s, err := New(context.Background(), Config{Dir: dir, Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkManyTypesLoad is specd serve's start: load, compile the
// conversion rules and prove their round trips.
func BenchmarkManyTypesLoad(b *testing.B) {
	dir, _ := manyTypes(b)
	for b.Loop() {
		benchSet(b, dir).Close()
	}
}

// BenchmarkManyTypesReloadOneFile changes one file among 1,000 resources
// and reloads: "cached" reuses the unchanged files' parsed documents (what
// specd does), "uncached" parses everything again (before the cache).
func BenchmarkManyTypesReloadOneFile(b *testing.B) {
	for _, mode := range []string{"cached", "uncached"} {
		b.Run(mode, func(b *testing.B) {
			dir, files := manyTypes(b)
			ctx := context.Background()
			r := benchSet(b, dir)
			defer r.Close()
			reloads := r.Serve(ctx, nil)
			defer reloads.Stop()
			i := 0
			for b.Loop() {
				i++
				extra := fmt.Sprintf("            note: {type: string, description: \"edit %d\"}\n", i)
				if err := os.WriteFile(files[0], []byte(schemagen.File(0, schemagen.Standard.KindsPerGroup, extra)), 0o644); err != nil {
					b.Fatal(err)
				}
				if mode == "uncached" {
					r.loader = schemas.NewLoader(dir)
				}
				if err := reloads.Reload(ctx, "bench"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkManyTypesMemory reports the heap that 1,000 served types with
// no objects take: the registry, compiled schemas and conversion rules,
// and the discovery and OpenAPI documents derived from them.
func BenchmarkManyTypesMemory(b *testing.B) {
	dir, _ := manyTypes(b)
	n := schemagen.Standard.Groups * schemagen.Standard.KindsPerGroup
	for b.Loop() {
		before := heapInUse()
		r := benchSet(b, dir)
		loaded := heapInUse()
		srv := server.New(server.Config{Registry: r.Registry, Logger: quietLogger()})
		get(b, srv, "/apis", aggregatedDiscovery)
		get(b, srv, "/openapi/v3", "application/json")
		derived := heapInUse()
		b.ReportMetric(float64(loaded-before)/float64(n), "registry-B/type")
		b.ReportMetric(float64(derived-loaded)/float64(n), "documents-B/type")
		runtime.KeepAlive(srv)
		r.Close()
	}
}

func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

const aggregatedDiscovery = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

func get(b *testing.B, h http.Handler, path, accept string) int {
	b.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Accept", accept)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("GET %s: HTTP %d", path, rec.Code)
	}
	return rec.Body.Len()
}

// BenchmarkManyTypesDiscovery is kubectl's one discovery request
// (aggregated /apis) with 1,000 resources: "served" from the documents of
// the current registry, "afterReload" the first request after a swap,
// which builds them.
func BenchmarkManyTypesDiscovery(b *testing.B) {
	dir, _ := manyTypes(b)
	r := benchSet(b, dir)
	defer r.Close()
	b.Run("served", func(b *testing.B) {
		srv := server.New(server.Config{Registry: r.Registry, Logger: quietLogger()})
		size := get(b, srv, "/apis", aggregatedDiscovery)
		for b.Loop() {
			get(b, srv, "/apis", aggregatedDiscovery)
		}
		b.ReportMetric(float64(size), "body-bytes")
	})
	b.Run("afterReload", func(b *testing.B) {
		for b.Loop() {
			// A new registry pointer, as a reload swaps in.
			reg := schemas.NewRegistry(r.Registry().Groups())
			srv := server.New(server.Config{Registry: func() *schemas.Registry { return reg }, Logger: quietLogger()})
			get(b, srv, "/apis", aggregatedDiscovery)
		}
	})
}

// BenchmarkManyTypesWatchCaches is the watch caches' part of 1,000 served
// types on a real (embedded) etcd. Caches start on first use, so serving
// the types costs nothing (idle-heap-B/type); then every resource is
// used once (a list), which starts its cache: the time per op and
// heap-B/cache are what 1,000 running, quiet caches cost.
func BenchmarkManyTypesWatchCaches(b *testing.B) {
	dir, _ := manyTypes(b)
	r := benchSet(b, dir)
	defer r.Close()
	storage := etcdstorage.New(etcdtest.Start(b))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	n := 0
	for b.Loop() {
		before := heapInUse()
		caches := watchcache.New(storage, watchcache.Config{Logger: quietLogger()})
		store := engine.NewStore(storage, engine.Options{Logger: quietLogger(), Cache: caches})
		idle := heapInUse()
		n = 0
		for _, res := range r.Registry().Resources() {
			if _, err := caches.List(ctx, store.Upkeep().Keys().Resource(res), engine.CacheListOptions{}); err != nil {
				b.Fatal(err)
			}
			n++
		}
		b.ReportMetric(float64(idle-before)/float64(n), "idle-heap-B/type")
		b.ReportMetric(float64(heapInUse()-idle)/float64(n), "heap-B/cache")
		caches.Close()
	}
	b.ReportMetric(float64(n), "caches")
}
