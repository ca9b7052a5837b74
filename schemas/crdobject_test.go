package schemas_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
)

// TestParseCRDObjectAsParseCRD: the corpus's CRDs (but those that name a
// conversion webhook, which need rules to load), as the JSON the API
// stores, declare through ParseCRDObject the registry and digests
// they declare through ParseCRD; a document that is not JSON is a
// problem naming its source.
func TestParseCRDObjectAsParseCRD(t *testing.T) {
	corpus := corpusCRDs(t)
	var viaYAML, viaJSON []*schemas.Declarations
	for _, name := range sortedNames(corpus) {
		c := corpus[name]
		if len(c.webhook) > 0 {
			continue
		}
		viaYAML = append(viaYAML, schemas.ParseCRD(c.source, c.doc))
		viaJSON = append(viaJSON, schemas.ParseCRDObject(c.source, c.doc))
	}
	regYAML, digestsYAML, errYAML := schemas.NewLoader(t.TempDir(), builtin.Schemas()).LoadWith(viaYAML...)
	regJSON, digestsJSON, errJSON := schemas.NewLoader(t.TempDir(), builtin.Schemas()).LoadWith(viaJSON...)
	if errYAML != nil || errJSON != nil {
		t.Fatalf("the corpus does not load: through ParseCRD %v, through ParseCRDObject %v", errYAML, errJSON)
	}
	if !maps.Equal(digestsYAML, digestsJSON) {
		t.Error("the digests differ")
	}
	if renderRegistry(regYAML) != renderRegistry(regJSON) {
		t.Error("the registries differ")
	}
	for i := range viaYAML {
		if viaYAML[i].ServedDigest() != viaJSON[i].ServedDigest() {
			t.Errorf("%s: the served digests differ", viaYAML[i].Source())
		}
	}
	d := schemas.ParseCRDObject("customresourcedefinitions/broken.example.com", []byte("kind: CustomResourceDefinition"))
	if err := d.Err(); err == nil || !strings.Contains(err.Error(), "customresourcedefinitions/broken.example.com") {
		t.Errorf("a document that is not JSON: %v, want a problem naming its source", err)
	}
}
