package serving

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/specd-io/specd/schemas"
)

// benchCRD is CRD i of group bench.example.com, as the CRD API feeds it.
func benchCRD(i int) *schemas.Declarations {
	doc := fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"things%[1]d.bench.example.com"},
"spec":{"group":"bench.example.com","scope":"Namespaced","names":{"plural":"things%[1]d","kind":"Thing%[1]d"},
"versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{
"a":{"type":"string"},"b":{"type":"integer"},"c":{"type":"boolean"}}}}}}}]}}`, i)
	return schemas.ParseCRD(SourcePrefix+fmt.Sprintf("things%d.bench.example.com", i), []byte(doc))
}

// BenchmarkSetDeclared500 is the reload the CRD API makes when a 501st
// CRD of a group is created next to 500 served ones.
func BenchmarkSetDeclared500(b *testing.B) {
	s := benchSet(b, b.TempDir())
	defer s.Close()
	r := s.Serve(context.Background(), nil)
	defer r.Stop()
	decls := make([]*schemas.Declarations, 0, 501)
	for i := range 501 {
		decls = append(decls, benchCRD(i))
	}
	if err := r.SetDeclared(context.Background(), decls[:500]); err != nil {
		b.Fatal(err)
	}
	n := 500
	for b.Loop() {
		n = 1001 - n // 501, then 500: one CRD added, then removed
		if err := r.SetDeclared(context.Background(), decls[:n]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDeclaredMemory500 reports the live heap a Set holds per CRD
// with 500 CRDs served (each SetDeclared adding one, so that the retained
// worlds are as specd serve has them).
func BenchmarkDeclaredMemory500(b *testing.B) {
	for b.Loop() {
		s := benchSet(b, b.TempDir())
		r := s.Serve(context.Background(), nil)
		before := liveHeap()
		var decls []*schemas.Declarations
		for i := range 500 {
			decls = append(decls, benchCRD(i))
			if err := r.SetDeclared(context.Background(), decls); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(liveHeap()-before)/500/1024, "KB/CRD")
		r.Stop()
		s.Close()
	}
}

func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
