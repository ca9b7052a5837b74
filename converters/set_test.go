package converters

import (
	"errors"
	"strings"
	"testing"

	"github.com/specd-io/specd/schemas"
)

// frobberSet: Frobber in v1 (rules), v2 (hub) and v3 (same shape as the
// hub, no rules).
func frobberSet(t testing.TB) *Set {
	t.Helper()
	res := resource(t, "Frobber", "v2", map[string]string{"v1": frobberV1, "v2": frobberV2, "v3": frobberV2})
	g := &schemas.Group{Name: testGroup, Resources: []*schemas.Resource{res}}
	s, err := NewSet(schemas.NewRegistry([]*schemas.Group{g}), func(rv *schemas.ResourceVersion) ([]any, string) {
		if rv.Version == "v1" {
			return ruleList(t, frobberRules), rulesPointer
		}
		return nil, ""
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSetConvert(t *testing.T) {
	s := frobberSet(t)
	v1 := obj("v1", `,"spec":{"height":1,"param":"a","legacy":false}`)
	v2 := obj("v2", `,"spec":{"heightInInches":1,"params":["a"],"unit":"inches"}`)
	v3 := obj("v3", `,"spec":{"heightInInches":1,"params":["a"],"unit":"inches"}`)
	tests := map[string]struct{ in, to, want string }{
		"spoke to hub":         {v1, "v2", v2},
		"hub to spoke":         {v2, "v1", v1},
		"spoke to spoke":       {v1, "v3", v3},
		"rule-less spoke back": {v3, "v1", v1},
		"same version":         {v1, "v1", v1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := s.Convert([]byte(tc.in), testGroup+"/"+tc.to)
			if err != nil {
				t.Fatal(err)
			}
			mustEqualJSON(t, "converted", string(got), tc.want)
		})
	}
	for name, tc := range map[string]struct{ in, to string }{
		"unknown kind":    {strings.Replace(v1, "Frobber", "Gadget", 1), testGroup + "/v2"},
		"unknown version": {v1, testGroup + "/v9"},
		"other group":     {v1, "other.example.com/v2"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := s.Convert([]byte(tc.in), tc.to); !errors.Is(err, ErrUnknownKind) {
				t.Errorf("err = %v, want ErrUnknownKind", err)
			}
		})
	}
}

// TestSetKeepsOtherVersionsData: data kept for v1 in the hub survives a
// trip of the hub object through v3 and back to v1.
func TestSetKeepsOtherVersionsData(t *testing.T) {
	s := frobberSet(t)
	v1 := obj("v1", `,"spec":{"legacy":true,"mode":"Fast"}`)
	cur := []byte(v1)
	for _, to := range []string{"v2", "v3", "v2", "v1"} {
		var err error
		if cur, err = s.Convert(cur, testGroup+"/"+to); err != nil {
			t.Fatalf("to %s: %v", to, err)
		}
	}
	mustEqualJSON(t, "v1 -> v2 -> v3 -> v2 -> v1", string(cur), v1)
}

func TestNewSetProblems(t *testing.T) {
	res := resource(t, "Frobber", "v2", map[string]string{"v1": frobberV1, "v2": frobberV2})
	g := &schemas.Group{Name: testGroup, Resources: []*schemas.Resource{res}}
	_, err := NewSet(schemas.NewRegistry([]*schemas.Group{g}), func(rv *schemas.ResourceVersion) ([]any, string) {
		if rv.Storage {
			return nil, ""
		}
		return ruleList(t, `[{rename: {from: spec.nope, to: spec.color}}, {split: {from: spec.height, to: spec.args, separator: " "}}]`), rulesPointer
	})
	var le *schemas.LoadError
	if !errors.As(err, &le) || len(le.Problems) != 2 {
		t.Fatalf("err = %v, want a LoadError with 2 problems", err)
	}
	if p := le.Problems[0]; p.File != "v1.yaml" || p.Pointer != rulesPointer+"/0/rename/from" {
		t.Errorf("problem 0 = %v", p)
	}
}

func TestMalformedBookkeeping(t *testing.T) {
	s := frobberSet(t)
	in := `{"apiVersion":"frobs.example.com/v1","kind":"Frobber","metadata":{"annotations":{"` + Annotation + `":"not json"}}}`
	if _, err := s.Convert([]byte(in), testGroup+"/v2"); !errors.Is(err, ErrBookkeeping) {
		t.Errorf("err = %v, want ErrBookkeeping", err)
	}
}

func TestNewSetRulesOnTheStorageVersion(t *testing.T) {
	res := resource(t, "Frobber", "v2", map[string]string{"v1": frobberV1, "v2": frobberV2})
	g := &schemas.Group{Name: testGroup, Resources: []*schemas.Resource{res}}
	_, err := NewSet(schemas.NewRegistry([]*schemas.Group{g}), func(rv *schemas.ResourceVersion) ([]any, string) {
		if rv.Version == "v2" {
			return []any{}, "/v2rules"
		}
		return nil, ""
	})
	var le *schemas.LoadError
	if !errors.As(err, &le) || len(le.Problems) != 1 || le.Problems[0].File != "v2.yaml" || le.Problems[0].Pointer != "/v2rules" {
		t.Fatalf("err = %v, want one problem at v2.yaml#/v2rules", err)
	}
}

// TestConverts tells the versions RoundTrip converts from those it
// returns as they came: only a resource of one version has none. A
// version without declared rules still converts: its fields may not be
// in the storage version's schema.
func TestConverts(t *testing.T) {
	frob := resource(t, "Frobber", "v2", map[string]string{"v1": frobberV1, "v2": frobberV2})
	plain := resource(t, "Plain", "v2", map[string]string{"v1": frobberV2, "v2": frobberV2})
	single := resource(t, "Single", "v2", map[string]string{"v2": frobberV2})
	g := &schemas.Group{Name: testGroup, Resources: []*schemas.Resource{frob, plain, single}}
	s, err := NewSet(schemas.NewRegistry([]*schemas.Group{g}), func(rv *schemas.ResourceVersion) ([]any, string) {
		if rv.Resource.Kind == "Frobber" && rv.Version == "v1" {
			return ruleList(t, frobberRules), rulesPointer
		}
		return nil, ""
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range []*schemas.Resource{frob, plain, single} {
		for _, rv := range res.Versions {
			if got, want := s.Converts(rv), res != single; got != want {
				t.Errorf("Converts(%s %s) = %v, want %v", res.Kind, rv.Version, got, want)
			}
		}
	}
}
