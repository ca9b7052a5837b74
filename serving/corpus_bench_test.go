package serving

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/specd-io/specd/internal/crdcorpus"
	"github.com/specd-io/specd/schemas"
)

// corpusDeclarations are the CRDs of the corpus (testdata/crds) as the CRD
// API feeds them, but for the six that name a conversion webhook (they
// need specd's rules, which the benchmark does not measure).
func corpusDeclarations(b *testing.B) []*schemas.Declarations {
	b.Helper()
	files, _ := filepath.Glob(filepath.Join(crdcorpus.Dir(b), "*", "crds", "*.yaml"))
	var out []*schemas.Declarations
	for _, f := range files {
		for _, doc := range crdcorpus.YAMLDocs(b, f) {
			var crd crdcorpus.CRD
			var meta struct {
				Metadata struct{ Name string } `json:"metadata"`
			}
			_ = json.Unmarshal(doc, &crd)
			_ = json.Unmarshal(doc, &meta)
			if crd.Spec.Conversion != nil && crd.Spec.Conversion.Strategy == "Webhook" {
				continue
			}
			out = append(out, schemas.ParseCRD(SourcePrefix+meta.Metadata.Name, doc))
		}
	}
	return out
}

// BenchmarkCheckDeclaredCorpus is the CRD API's write check of the last
// CRD of the corpus created next to the 128 others: the candidate built
// and judged by the compatibility gate, which compares only what changed.
func BenchmarkCheckDeclaredCorpus(b *testing.B) {
	s := benchSet(b, b.TempDir())
	defer s.Close()
	r := s.Serve(context.Background(), nil)
	defer r.Stop()
	decls := corpusDeclarations(b)
	last := len(decls) - 1
	if err := r.SetDeclared(context.Background(), decls[:last]); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := s.CheckDeclared(context.Background(), nil, decls[last]); err != nil {
			b.Fatal(err)
		}
	}
}
