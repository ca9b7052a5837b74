package server

import (
	"net/http"
	"testing"

	"github.com/specd-io/specd/internal/schemagen"
	"github.com/specd-io/specd/schemas"
)

// BenchmarkOpenAPIDocuments builds the published documents of 1,000
// resources (schemagen.Standard) as the first request after a reload
// does: "v3" the index and every group version document, "v2" the one
// Swagger 2.0 document. Each iteration is a new registry snapshot.
func BenchmarkOpenAPIDocuments(b *testing.B) {
	dir := b.TempDir()
	if _, err := schemagen.Write(dir, schemagen.Standard); err != nil {
		b.Fatal(err)
	}
	reg, err := schemas.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, path := range []string{"/openapi/v3", "/openapi/v2"} {
		b.Run(path[len("/openapi/"):], func(b *testing.B) {
			size := 0
			for b.Loop() {
				snapshot := schemas.NewRegistry(reg.Groups()) // a new pointer, as a reload swaps in
				s := New(Config{Registry: func() *schemas.Registry { return snapshot }, Store: newFakeStore()})
				w := serve(b, s, request{path: path})
				if w.Code != http.StatusOK {
					b.Fatalf("%s: %d", path, w.Code)
				}
				size = w.Body.Len()
			}
			b.ReportMetric(float64(size), "body-bytes")
		})
	}
}
