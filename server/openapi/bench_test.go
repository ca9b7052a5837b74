package openapi

import (
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
	build := map[string]func(*Documents) *Document{
		"v3": (*Documents).Index,
		"v2": (*Documents).Swagger,
	}
	for _, name := range []string{"v3", "v2"} {
		b.Run(name, func(b *testing.B) {
			size := 0
			for b.Loop() {
				snapshot := schemas.NewRegistry(reg.Groups()) // a new pointer, as a reload swaps in
				size = len(build[name](New(snapshot, servedVerbs)).JSON())
			}
			b.ReportMetric(float64(size), "body-bytes")
		})
	}
}
