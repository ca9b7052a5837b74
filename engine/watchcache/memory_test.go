package watchcache

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/specd-io/specd/engine"
)

// benchObject is about 1.7 KB of JSON, like specd bench's objects: 20
// string fields of 70 characters in spec.
func benchObject(i int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"apiVersion":"bench.specd.io/v1","kind":"Payload","metadata":{"name":"obj-%05d","namespace":"bench","uid":"6da9ed3a-59bf-4792-96da-1b17a0aa%04d","creationTimestamp":"2026-11-21T10:19:21Z","generation":1},"spec":{`, i, i%10000)
	for f := range 20 {
		if f > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"f%02d":"%s"`, f, strings.Repeat(string(rune('a'+(i+f)%26)), 70))
	}
	b.WriteString("}}")
	return []byte(b.String())
}

func heapAlloc() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestCacheMemory measures what the cache costs per byte of JSON it holds
// (10,000 objects of about 1.7 KB), and what the same objects cost decoded
// into maps, as a cache of decoded objects would hold them. The cache must
// stay within 1.25x of the JSON.
func TestCacheMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("measures memory")
	}
	const n = 10000
	st := newFakeStorage()
	var jsonBytes int
	for i := range n {
		obj := benchObject(i)
		jsonBytes += len(obj)
		if _, err := st.Create(context.Background(), fmt.Sprintf("%sbench/obj-%05d", res, i), obj); err != nil {
			t.Fatal(err)
		}
	}
	before := heapAlloc()
	cs := New(st, Config{})
	defer cs.Close()
	if _, err := cs.List(context.Background(), res, engine.CacheListOptions{Prefix: res, Limit: 1}); err != nil {
		t.Fatal(err)
	}
	cached := heapAlloc() - before

	before = heapAlloc()
	decoded := make([]map[string]any, n)
	for i := range n {
		if err := json.Unmarshal(benchObject(i), &decoded[i]); err != nil {
			t.Fatal(err)
		}
	}
	maps := heapAlloc() - before
	runtime.KeepAlive(decoded)

	ratio := float64(cached) / float64(jsonBytes)
	t.Logf("%d objects, %.1f MiB of JSON: cache %.1f MiB (%.2fx the JSON, %d bytes per object over it); decoded maps %.1f MiB (%.2fx)",
		n, mib(jsonBytes), mib(int(cached)), ratio, (int(cached)-jsonBytes)/n, mib(int(maps)), float64(maps)/float64(jsonBytes))
	if ratio > 1.25 {
		t.Errorf("the cache costs %.2fx the JSON it holds, want <= 1.25x", ratio)
	}
}

func mib(n int) float64 { return float64(n) / (1 << 20) }

// BenchmarkCacheList is the cache's part of a full list of 10,000
// objects: the snapshot of the entries under the prefix.
func BenchmarkCacheList(b *testing.B) {
	st := newFakeStorage()
	for i := range 10000 {
		if _, err := st.Create(context.Background(), fmt.Sprintf("%sbench/obj-%05d", res, i), benchObject(i)); err != nil {
			b.Fatal(err)
		}
	}
	cs := New(st, Config{})
	defer cs.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		r, err := cs.List(ctx, res, engine.CacheListOptions{Prefix: res})
		if err != nil || len(r.Items) != 10000 {
			b.Fatal(err, len(r.Items))
		}
	}
}
