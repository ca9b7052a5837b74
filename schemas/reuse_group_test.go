package schemas_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
)

// oneGroup is the group of the CRDs of TestReuseOneGroupEqualsFullAssembly.
const oneGroup = "one.example.com"

// TestReuseOneGroupEqualsFullAssembly walks a Loader through 200 random
// changes of 40 CRDs of one group, beside a schema file of the same group
// version that comes and goes: CRDs created, deleted, marked terminating
// or installing, written again with the same or new names (short names,
// singulars and list kinds that may clash with another kind's, a second
// version, deprecated or not), handed over out of name order, or beside
// a broken CRD of another group, so that a load that built the group
// again fails and the next one, without it, keeps the change. After each,
// the registry (or the error) of the load that reuses unchanged kinds must
// equal that of a full assembly of the same declarations; the walk must
// have kept some kinds of a group it built again, and found clashes.
func TestReuseOneGroupEqualsFullAssembly(t *testing.T) {
	dir := t.TempDir()
	l := schemas.NewLoader(dir, builtin.Schemas())
	w := &groupWalk{t: t, dir: dir, rng: rand.New(rand.NewPCG(28, 2)), kinds: map[int]oneKind{}, in: map[int]*schemas.Declarations{}}
	for i := range 20 {
		w.kinds[i] = oneKind{i: i}
		w.in[i] = w.kinds[i].decl()
	}
	var prev *schemas.Registry
	loaded, kept, failed := 0, 0, 0
	for step := range 200 {
		change := w.change()
		reg, err := loadAsFull(t, l, step, change, w.declarations())
		if err != nil {
			if failed++; failed < 4 {
				t.Logf("step %d (%s): %v", step, change, err)
			}
			w.undoNext()
			continue
		}
		loaded++
		kept += keptKinds(prev, reg)
		checkEachChanged(t, step, prev, reg)
		prev = reg
	}
	t.Logf("%d loads, %d failed; %d kinds kept in a group built again", loaded, failed, kept)
	if loaded < 100 || failed < 10 || kept < 1000 {
		t.Errorf("%d of 200 loads succeeded, %d failed, %d kinds kept: the walk tests too little", loaded, failed, kept)
	}
}

// oneKind is CRD things<i> of oneGroup, and what the walk changed in it.
type oneKind struct {
	i                      int
	short, singular, list  string // "" for none (the default)
	v2, deprecated, rewrit bool
}

func (k oneKind) decl() *schemas.Declarations {
	names := fmt.Sprintf(`"plural":"things%[1]d","kind":"Thing%[1]d"`, k.i)
	if k.short != "" {
		names += fmt.Sprintf(`,"shortNames":[%q]`, k.short)
	}
	if k.singular != "" {
		names += fmt.Sprintf(`,"singular":%q`, k.singular)
	}
	if k.list != "" {
		names += fmt.Sprintf(`,"listKind":%q`, k.list)
	}
	schema := `"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"string"}}}}}}`
	versions := `{"name":"v1","served":true,"storage":true,` + schema + `}`
	if k.v2 {
		versions += fmt.Sprintf(`,{"name":"v2beta1","served":true,"storage":false,"deprecated":%t,%s}`, k.deprecated, schema)
	}
	doc := fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"things%d.%s"},"spec":{"group":%q,"scope":"Namespaced","names":{%s},"versions":[%s]}}`,
		k.i, oneGroup, oneGroup, names, versions)
	if k.rewrit {
		doc += "\n"
	}
	return schemas.ParseCRD(fmt.Sprintf("customresourcedefinitions/things%d.%s", k.i, oneGroup), []byte(doc))
}

// groupWalk is the CRDs of oneGroup a Loader is handed, changed at random.
type groupWalk struct {
	t     *testing.T
	dir   string
	rng   *rand.Rand
	kinds map[int]oneKind
	in    map[int]*schemas.Declarations
	last  int // handed over last, out of name order (-1 for none)
	// before is the CRD the last change changed, as it was; undo: the
	// next change puts it back, as one fixes a CRD refused.
	before struct {
		i    int
		k    oneKind
		d    *schemas.Declarations
		file bool
	}
	undo bool
	// broken adds a CRD of another group that does not load, so that a
	// load fails for a cause outside the group.
	broken bool
}

func (w *groupWalk) undoNext() { w.undo = true }

// change makes a random change, and says what it was.
func (w *groupWalk) change() string {
	w.last = -1
	if w.undo && w.broken {
		w.undo, w.broken = false, false
		return "the broken CRD removed, the change kept"
	}
	if w.undo {
		w.undo = false
		b := w.before
		if b.file {
			w.file()
			return "the schema file undone"
		}
		w.kinds[b.i], w.in[b.i] = b.k, b.d
		if b.d == nil {
			delete(w.in, b.i)
		}
		if b.k.i != b.i {
			delete(w.kinds, b.i) // it had none
		}
		return fmt.Sprintf("things%d undone", b.i)
	}
	i := w.rng.IntN(40)
	k, in := w.kinds[i], w.in[i] != nil
	if _, ok := w.kinds[i]; !ok {
		k = oneKind{i: i}
	}
	w.before.i, w.before.k, w.before.d, w.before.file = i, w.kinds[i], w.in[i], false
	switch op := w.rng.IntN(11); {
	case op == 10:
		k.rewrit = !k.rewrit
		w.broken = true
		return w.set(k, false) + " again, beside a broken CRD"
	case op == 0 && in && w.rng.IntN(2) == 0:
		w.in[i].MarkTerminating()
		return fmt.Sprintf("things%d terminating", i)
	case op == 0 && in:
		w.in[i].MarkInstalling()
		return fmt.Sprintf("things%d installing", i)
	case op == 1:
		k.rewrit = !k.rewrit
		w.set(k, false)
		return fmt.Sprintf("things%d written again", i)
	case op == 2:
		k.short = w.pick("s%d", "")
		return w.set(k, false) + " short name " + k.short
	case op == 3:
		// A singular that may be another kind's plural or singular.
		k.singular = w.pick("things%d", "thing"+fmt.Sprint(i))
		return w.set(k, false) + " singular " + k.singular
	case op == 4:
		// A list kind that may be another kind's kind or list kind.
		k.list = w.pick("Thing%d", "Thing"+fmt.Sprint(i)+"List")
		return w.set(k, false) + " list kind " + k.list
	case op == 5:
		k.v2, k.deprecated = !k.v2, w.rng.IntN(2) == 0
		return w.set(k, false) + fmt.Sprintf(" v2beta1 %t, deprecated %t", k.v2, k.deprecated)
	case op == 6:
		s := w.set(k, true)
		w.last = i
		return s + ", handed over last"
	case op == 7:
		w.file()
		w.before.file = true
		return "the schema file"
	default:
		if in {
			delete(w.in, i)
			return fmt.Sprintf("things%d deleted", i)
		}
		w.kinds[i] = k
		w.in[i] = k.decl()
		return fmt.Sprintf("things%d created", i)
	}
}

// pick is format with a kind at random, or def, or "".
func (w *groupWalk) pick(format, def string) string {
	switch n := w.rng.IntN(10); {
	case n < 5:
		return ""
	case n < 8:
		return def
	}
	return fmt.Sprintf(format, w.rng.IntN(40))
}

// set writes k as it is now, installing (not Established yet) or not,
// and says so.
func (w *groupWalk) set(k oneKind, installing bool) string {
	w.kinds[k.i] = k
	d := k.decl()
	if installing {
		d.MarkInstalling()
	}
	w.in[k.i] = d
	return fmt.Sprintf("things%d written", k.i)
}

// file writes or removes a schema file of oneGroup/v1 with kind Gadget,
// whose short name may clash with a CRD's.
func (w *groupWalk) file() {
	name := filepath.Join(w.dir, "gadgets.yaml")
	if _, err := os.Stat(name); err == nil {
		if err := os.Remove(name); err != nil {
			w.t.Fatal(err)
		}
		return
	}
	doc := strings.Join([]string{
		"openapi: 3.0.3",
		"info: {title: gadgets, version: v1}",
		"x-specd: {group: " + oneGroup + "}",
		"components:",
		"  schemas:",
		"    Gadget:",
		"      type: object",
		"      x-specd-resource: {shortNames: [" + fmt.Sprintf("s%d", w.rng.IntN(40)) + "]}",
		"      properties:",
		"        spec: {type: object, properties: {a: {type: string}}}",
		"",
	}, "\n")
	if err := os.WriteFile(name, []byte(doc), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// declarations are the CRDs in name order but for the one handed over
// last.
func (w *groupWalk) declarations() []*schemas.Declarations {
	var out []*schemas.Declarations
	for _, name := range sortedNames(w.byName()) {
		if d := w.byName()[name]; name != w.lastName() {
			out = append(out, d)
		}
	}
	if d := w.in[w.last]; d != nil {
		out = append(out, d)
	}
	if w.broken {
		out = append(out, schemas.ParseCRD("customresourcedefinitions/broken", []byte(`{"apiVersion":"apiextensions.k8s.io/v1",
"kind":"CustomResourceDefinition","metadata":{"name":"wrong"},"spec":{"group":"other.example.com","scope":"Namespaced",
"names":{"plural":"others","kind":"Other"},"versions":[{"name":"v1","served":true,"storage":true,
"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`)))
	}
	return out
}

func (w *groupWalk) byName() map[string]*schemas.Declarations {
	m := make(map[string]*schemas.Declarations, len(w.in))
	for _, d := range w.in {
		m[d.Source()] = d
	}
	return m
}

func (w *groupWalk) lastName() string {
	if d := w.in[w.last]; d != nil {
		return d.Source()
	}
	return ""
}

// keptKinds counts the resources of oneGroup that next holds as prev
// built them, when next's group is not prev's.
func keptKinds(prev, next *schemas.Registry) int {
	if prev == nil || prev.Group(oneGroup) == nil || next.Group(oneGroup) == prev.Group(oneGroup) {
		return 0
	}
	n := 0
	for _, res := range next.Group(oneGroup).Resources {
		if prev.Resource(res.GroupResource()) == res {
			n++
		}
	}
	return n
}
