package check

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sort"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/structural"
)

// ErrNoValidObject is returned (wrapped, with the last validation errors)
// when no generated object passed validation: the schema is unsatisfiable
// or uses a constraint the generator cannot meet.
var ErrNoValidObject = errors.New("check: no valid object generated")

// attempts is how many objects Object generates before giving up; each
// attempt adds fewer optional fields.
const attempts = 40

// Generator makes random objects that are valid for a resource version's
// schema. The same Seed, version and round always give the same object.
type Generator struct {
	Seed int64
	// patterns, when set, keeps the schema's patterns compiled from one
	// Object to the next (Fuzz.version); else each Object compiles its own.
	patterns patterns
}

// Object returns a random object of rv, valid under rv.Schema, with
// apiVersion, kind and metadata (name, and namespace when namespaced). The
// object depends only on g.Seed, rv's group, plural and version, and round.
func (g Generator) Object(rv *schemas.ResourceVersion, round int) (map[string]any, error) {
	r := rand.New(rand.NewPCG(uint64(g.Seed), seedOf(rv, round)))
	ps := g.patterns
	if ps == nil {
		ps = patterns{}
	}
	var last error
	for a := range attempts {
		gen := &generator{r: r, optional: 0.7 - float64(a)*0.7/attempts, patterns: ps}
		obj := gen.object(rv.OpenAPI, 0, true)
		obj["apiVersion"] = rv.APIVersion()
		obj["kind"] = rv.Resource.Kind
		meta := map[string]any{"name": fmt.Sprintf("obj-%d", round)}
		if rv.Resource.Namespaced() {
			meta["namespace"] = "default"
		}
		obj["metadata"] = meta
		errs := rv.Schema.Validate(obj)
		if len(errs) == 0 {
			return obj, nil
		}
		last = errs.ToAggregate()
	}
	return nil, fmt.Errorf("%w for %s %s: %v", ErrNoValidObject, rv.Resource.GroupResource(), rv.Version, last)
}

func seedOf(rv *schemas.ResourceVersion, round int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%s/%s/%d", rv.Resource.Group, rv.Resource.Plural, rv.Version, round)
	return h.Sum64()
}

// generator is one attempt at an object.
type generator struct {
	r *rand.Rand
	// optional is the chance of an optional field at the root; it halves
	// every few levels down.
	optional float64
	patterns patterns
}

// maxDepth is where optional fields stop being generated.
const maxDepth = 12

func (g *generator) chance(p float64) bool { return g.r.Float64() < p }

func (g *generator) value(s *openapi3.Schema, depth int) any {
	if s == nil {
		return "x"
	}
	if len(s.Enum) > 0 {
		return g.enum(s)
	}
	if s.Nullable && depth > 0 && g.chance(0.05) {
		return nil
	}
	switch typeOf(s) {
	case "object":
		return g.object(s, depth, false)
	case "array":
		return g.array(s, depth)
	case "string":
		return g.str(s)
	case "integer":
		return g.integer(s)
	case "number":
		return g.number(s)
	case "boolean":
		return g.r.IntN(2) == 0
	case "int-or-string":
		if g.r.IntN(2) == 0 {
			return g.integer(s)
		}
		return g.str(s)
	}
	return g.str(s)
}

// typeOf is the one type to generate for s.
func typeOf(s *openapi3.Schema) string {
	if boolExt(s, "x-kubernetes-int-or-string") {
		return "int-or-string"
	}
	types := s.Type.Slice()
	for _, t := range types {
		if t != "null" {
			return t
		}
	}
	switch {
	case len(s.Properties) > 0 || s.AdditionalProperties.Schema != nil || boolExt(s, "x-kubernetes-preserve-unknown-fields"):
		return "object"
	case s.Items != nil:
		return "array"
	}
	return "string"
}

func boolExt(s *openapi3.Schema, name string) bool {
	var b bool
	ok, err := structural.Extension(s, name, &b)
	return ok && err == nil && b
}

func (g *generator) enum(s *openapi3.Schema) any {
	v := normalize(s.Enum[g.r.IntN(len(s.Enum))])
	if f, ok := v.(float64); ok && typeOf(s) == "integer" && f == float64(int64(f)) {
		return int64(f)
	}
	return v
}

func sortedProps(s *openapi3.Schema) []string {
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func propSchema(ref *openapi3.SchemaRef) *openapi3.Schema {
	if ref == nil {
		return nil
	}
	return ref.Value
}
