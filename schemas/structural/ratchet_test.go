package structural

import (
	"slices"
	"testing"
)

// ratchetSchema has what kube's ratcheting conformance test has: a field
// whose enum no longer admits the stored value, at the root, in a struct,
// in a map, in a map list; and an atomic list, whose items cannot be
// paired.
const ratchetSchema = `{"type":"object","required":["need"],"properties":{
 "need":{"type":"string"},
 "field":{"type":"string","enum":["notfoo"]},
 "struct":{"type":"object","properties":{"field":{"type":"string","enum":["notfoo"]}}},
 "map":{"type":"object","additionalProperties":{"type":"object","properties":{"field":{"type":"string","enum":["notfoo"]}}}},
 "list":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
  "items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"field":{"type":"string","enum":["notfoo"]}}}},
 "atomic":{"type":"array","items":{"type":"string","enum":["notfoo"]}}}}`

// TestValidateUpdateRatchets: an update is refused for what it changed
// to an invalid value, and not for what it left as it was; a create is
// refused for all of it.
func TestValidateUpdateRatchets(t *testing.T) {
	s := mustCompile(t, ratchetSchema)
	old := `{"metadata":{"name":"o"},"need":"x","field":"foo","struct":{"field":"foo"},"map":{"a":{"field":"foo"}},
		"list":[{"name":"x","field":"foo"},{"name":"y","field":"notfoo"}],"atomic":["foo"]}`
	tests := map[string]struct {
		obj  string
		want []string // the fields refused
	}{
		"a label, nothing else": {obj: `{"metadata":{"name":"o","labels":{"a":"b"}},"need":"x","field":"foo","struct":{"field":"foo"},"map":{"a":{"field":"foo"}},
			"list":[{"name":"x","field":"foo"},{"name":"y","field":"notfoo"}],"atomic":["foo"]}`},
		"map list items reordered": {obj: `{"metadata":{"name":"o"},"need":"x","field":"foo","struct":{"field":"foo"},"map":{"a":{"field":"foo"}},
			"list":[{"name":"y","field":"notfoo"},{"name":"x","field":"foo"}],"atomic":["foo"]}`},
		"changed to another invalid value": {obj: `{"metadata":{"name":"o"},"need":"x","field":"bar","struct":{"field":"bar"},"map":{"a":{"field":"foo"},"b":{"field":"foo"}},
			"list":[{"name":"x","field":"foo"},{"name":"z","field":"foo"}],"atomic":["foo"]}`,
			want: []string{"field", "list[1].field", "map.b.field", "struct.field"}},
		"an atomic list changed": {obj: `{"metadata":{"name":"o"},"need":"x","field":"foo","struct":{"field":"foo"},"map":{"a":{"field":"foo"}},
			"list":[{"name":"x","field":"foo"},{"name":"y","field":"notfoo"}],"atomic":["foo","notfoo"]}`,
			want: []string{"atomic[0]"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, e := range s.ValidateUpdate(object(t, tc.obj), object(t, old)) {
				got = append(got, e.Field)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("refused %v, want %v", got, tc.want)
			}
		})
	}
	if errs := s.Validate(object(t, old)); len(errs) != 5 {
		t.Errorf("a create of the old object: %d errors, want 5 (field, struct, map, list, atomic): %v", len(errs), errorStrings(errs))
	}
	// The root changed (a label): a required field missing from it is
	// refused, as kube's ratcheting judges the object whose property it is.
	noNeed := `{"metadata":{"name":"o","labels":{"a":"b"}}}`
	if errs := s.ValidateUpdate(object(t, noNeed), object(t, `{"metadata":{"name":"o"}}`)); len(errs) != 1 || errs[0].Field != "need" {
		t.Errorf("a required field missing from a changed object: %v, want need refused", errorStrings(errs))
	}
}
