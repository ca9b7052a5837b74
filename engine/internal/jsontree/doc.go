// Package jsontree encodes the JSON trees the engine works on (what
// sigs.k8s.io/json decodes with preserved integers: map[string]any, []any,
// string, bool, int64, float64 and nil) byte for byte as encoding/json
// does with HTML escaping off, sorted keys included, at a fraction of its
// cost: encoding/json reflects on every value and sorts every map's keys
// through reflect.Value, which was 40% of the engine's own CPU in a
// create (docs/performance.md, "Events"). Strings that need escaping,
// floats and any other type go through encoding/json itself, so the
// output never differs from it.
//
// DecodeObject is the other way: it decodes a well-formed JSON object into
// the same tree as sigs.k8s.io/json, about three times as fast, and leaves
// every document it would not decode exactly the same (malformed, a
// repeated key, invalid UTF-8) to that decoder, so that its errors stay
// kube-apiserver's. A fuzz test compares the two.
package jsontree
