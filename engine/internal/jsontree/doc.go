// Package jsontree encodes the JSON trees the engine works on (what
// sigs.k8s.io/json decodes with preserved integers: map[string]any, []any,
// string, bool, int64, float64 and nil) byte for byte as encoding/json
// does with HTML escaping off, sorted keys included, at a fraction of its
// cost: encoding/json reflects on every value and sorts every map's keys
// through reflect.Value, which was 40% of the engine's own CPU in a
// create (docs/performance.md, "Events"). Strings that need escaping,
// floats and any other type go through encoding/json itself, so the
// output never differs from it.
package jsontree
