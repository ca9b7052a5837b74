package schemas_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/specd-io/specd/internal/crdcorpus"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
)

// TestReuseEqualsFullAssembly walks a Loader through 60 random changes of
// the CRDs of the corpus (testdata/crds) it loads with the built-in
// files (whose events.k8s.io Events are stored with the core group's):
// CRDs created, deleted, marked terminating, written again with new bytes,
// handed over in another order, a second CRD declaring a resource again
// (a load that fails), and those with a conversion webhook, whose specd
// rules come from a side file of the directory. After each, the
// registry (or the error) of the load that reuses unchanged groups must
// equal that of a full assembly of the same declarations.
func TestReuseEqualsFullAssembly(t *testing.T) {
	dir := t.TempDir()
	corpus := corpusCRDs(t)
	l := schemas.NewLoader(dir, builtin.Schemas())
	w := &walk{t: t, dir: dir, corpus: corpus, in: map[string]*schemas.Declarations{}, rng: rand.New(rand.NewPCG(28, 1))}
	for _, name := range sortedNames(corpus)[:len(corpus)/2] {
		w.toggle(name)
	}
	var prev *schemas.Registry
	loaded, reused := 0, 0
	for step := range 60 {
		change := w.change(step % 5)
		reg, err := loadAsFull(t, l, step, change, w.declarations())
		if err != nil {
			t.Logf("step %d (%s): %v", step, change, err)
		}
		if err == nil {
			loaded++
			reused += sharedGroups(prev, reg)
			checkEachChanged(t, step, prev, reg)
			prev = reg
		}
	}
	if loaded < 30 || reused == 0 {
		t.Errorf("%d of 60 loads succeeded, reusing %d groups: the walk tests too little", loaded, reused)
	}
}

// corpusCRD is one CRD of the corpus: its bytes and whether it names a
// conversion webhook.
type corpusCRD struct {
	source  string
	doc     []byte
	webhook []string // its versions but the storage one, when it names a conversion webhook
}

func (c *corpusCRD) decl() *schemas.Declarations { return schemas.ParseCRD(c.source, c.doc) }

func corpusCRDs(t *testing.T) map[string]*corpusCRD {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(crdcorpus.Dir(t), "*", "crds", "*.yaml"))
	out := map[string]*corpusCRD{}
	for _, f := range files {
		for _, doc := range crdcorpus.YAMLDocs(t, f) {
			var crd crdcorpus.CRD
			var meta struct {
				Metadata struct{ Name string } `json:"metadata"`
			}
			if json.Unmarshal(doc, &crd) != nil || json.Unmarshal(doc, &meta) != nil {
				t.Fatalf("%s: not a CRD", f)
			}
			c := &corpusCRD{source: "customresourcedefinitions/" + meta.Metadata.Name, doc: doc}
			if crd.Spec.Conversion != nil && crd.Spec.Conversion.Strategy == "Webhook" {
				for _, v := range crd.Spec.Versions {
					if !v.Storage {
						c.webhook = append(c.webhook, v.Name)
					}
				}
			}
			out[meta.Metadata.Name] = c
		}
	}
	if len(out) != 135 {
		t.Fatalf("corpus has %d CRDs, README says 135", len(out))
	}
	return out
}

// walk is the CRDs a Loader is handed, changed at random.
type walk struct {
	t      *testing.T
	dir    string
	corpus map[string]*corpusCRD
	in     map[string]*schemas.Declarations
	last   string // handed over last, out of name order ("" for none)
	rng    *rand.Rand
}

// change makes change op (0-4) to a CRD picked at random, and says what
// it was.
func (w *walk) change(op int) string {
	names := sortedNames(w.corpus)
	name := names[w.rng.IntN(len(names))]
	w.last = ""
	delete(w.in, "copy")
	switch {
	case op == 0 && w.in[name] != nil:
		w.in[name].MarkTerminating()
		return "terminating " + name
	case op == 1 && w.in[name] != nil:
		c := w.corpus[name]
		w.in[name] = schemas.ParseCRD(c.source, append(slices.Clone(c.doc), '\n'))
		return "rewritten " + name
	case op == 3 && w.in[name] != nil:
		// A second CRD declaring the same resource: a load that fails.
		w.in["copy"] = schemas.ParseCRD("customresourcedefinitions/copy", w.corpus[name].doc)
		return "copied " + name
	case op == 2:
		w.toggle(name)
		w.last = name
		return "toggled " + name + ", handed over last"
	default:
		w.toggle(name)
		return "toggled " + name
	}
}

// toggle adds or removes the CRD name, and the side file of conversion
// rules a CRD with a conversion webhook needs.
func (w *walk) toggle(name string) {
	c := w.corpus[name]
	side := filepath.Join(w.dir, strings.ReplaceAll(name, ".", "-")+"-rules.yaml")
	if w.in[name] != nil {
		delete(w.in, name)
		if c.webhook != nil {
			w.remove(side)
		}
		return
	}
	w.in[name] = c.decl()
	if c.webhook != nil {
		w.write(side, sideRules(name, c.webhook))
	}
}

func (w *walk) write(file, content string) {
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *walk) remove(file string) {
	if err := os.Remove(file); err != nil && !os.IsNotExist(err) {
		w.t.Fatal(err)
	}
}

// sideRules are rules that convert every version field for field.
func sideRules(crd string, versions []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: specd.io/v1alpha1\nkind: ConversionRules\nmetadata:\n  name: %s\nspec:\n  versions:\n", crd)
	for _, v := range versions {
		fmt.Fprintf(&b, "    %s: []\n", v)
	}
	return b.String()
}

// declarations are the CRDs in name order, as the CRD API's feed hands
// them, but for the last one toggled in, which comes last, as the
// write check hands a new CRD.
func (w *walk) declarations() []*schemas.Declarations {
	var out []*schemas.Declarations
	for _, name := range sortedNames(w.in) {
		if name != w.last {
			out = append(out, w.in[name])
		}
	}
	if d := w.in[w.last]; d != nil {
		out = append(out, d)
	}
	return out
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// sharedGroups counts the groups next holds as prev built them.
func sharedGroups(prev, next *schemas.Registry) int {
	n := 0
	for _, g := range next.Groups() {
		if prev != nil && prev.Group(g.Name) == g {
			n++
		}
	}
	return n
}

// loadAsFull loads decls with l, and fails the test at step (a change)
// unless the registry and the error equal those of a full assembly of
// the same declarations.
func loadAsFull(t *testing.T, l *schemas.Loader, step int, change string, decls []*schemas.Declarations) (*schemas.Registry, error) {
	t.Helper()
	reg, _, err := l.LoadWith(decls...)
	saved := schemas.SaveAssembly(l)
	l.ForgetAssembly()
	full, _, fullErr := l.LoadWith(decls...)
	schemas.RestoreAssembly(l, saved)
	if fmt.Sprint(err) != fmt.Sprint(fullErr) {
		t.Fatalf("step %d (%s): error %v, a full assembly: %v", step, change, err, fullErr)
	}
	if reg != nil && full != nil {
		schemas.FlattenIndexes(reg)
		schemas.FlattenIndexes(full)
	}
	if !reflect.DeepEqual(reg, full) {
		t.Fatalf("step %d (%s): the registry differs from a full assembly's", step, change)
	}
	return reg, err
}
