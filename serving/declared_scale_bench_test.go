package serving

import (
	"context"
	"fmt"
	"testing"

	"github.com/specd-io/specd/schemas"
)

// BenchmarkSetDeclaredScale is the reload the CRD API makes when the
// (n+1)th CRD of a group is created next to n served ones, and when it
// is deleted again, at n = 10, 100, 1,000 and 5,000 (whose setup, parsing
// and proving 5,000 CRDs, takes about 20 s): the schema set's part of a
// CRD create. What one reload costs should not grow with n.
//
//	go test ./serving/ -run '^$' -bench BenchmarkSetDeclaredScale -benchmem
func BenchmarkSetDeclaredScale(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 5000} {
		b.Run(fmt.Sprintf("crds=%d", n), func(b *testing.B) {
			s := benchSet(b, b.TempDir())
			defer s.Close()
			r := s.Serve(context.Background(), nil)
			defer r.Stop()
			decls := make([]*schemas.Declarations, 0, n+1)
			for i := range n + 1 {
				decls = append(decls, benchCRD(i))
			}
			if err := r.SetDeclared(context.Background(), decls[:n]); err != nil {
				b.Fatal(err)
			}
			k := n
			for b.Loop() {
				k = 2*n + 1 - k // n+1, then n: one CRD added, then removed
				if err := r.SetDeclared(context.Background(), decls[:k]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSetDeclaredGroups is BenchmarkSetDeclaredScale with every CRD
// in a group of its own, as CRDs of many projects are: the reload of the
// (n+1)th CRD's group beside n other groups, at n = 100 and 1,000.
//
//	go test ./serving/ -run '^$' -bench BenchmarkSetDeclaredGroups -benchmem
func BenchmarkSetDeclaredGroups(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("crds=%d", n), func(b *testing.B) {
			s := benchSet(b, b.TempDir())
			defer s.Close()
			r := s.Serve(context.Background(), nil)
			defer r.Stop()
			decls := make([]*schemas.Declarations, 0, n+1)
			for i := range n + 1 {
				decls = append(decls, benchGroupCRD(i))
			}
			if err := r.SetDeclared(context.Background(), decls[:n]); err != nil {
				b.Fatal(err)
			}
			k := n
			for b.Loop() {
				k = 2*n + 1 - k // n+1, then n: one group added, then removed
				if err := r.SetDeclared(context.Background(), decls[:k]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchGroupCRD is CRD i, alone in group g<i>.bench.example.com.
func benchGroupCRD(i int) *schemas.Declarations {
	doc := fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"things.g%[1]d.bench.example.com"},
"spec":{"group":"g%[1]d.bench.example.com","scope":"Namespaced","names":{"plural":"things","kind":"Thing"},
"versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{
"a":{"type":"string"},"b":{"type":"integer"},"c":{"type":"boolean"}}}}}}}]}}`, i)
	return schemas.ParseCRD(SourcePrefix+fmt.Sprintf("things.g%d.bench.example.com", i), []byte(doc))
}
