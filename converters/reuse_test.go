package converters

import (
	"testing"

	"github.com/specd-io/specd/schemas"
)

// frobberGroup is a group of its own with Frobber in v1 (frobberRules,
// declared), v2 (hub) and v3.
func frobberGroup(t *testing.T, name string) *schemas.Group {
	t.Helper()
	res := resource(t, "Frobber", "v2", map[string]string{"v1": frobberV1, "v2": frobberV2, "v3": frobberV2})
	res.Group = name
	res.Versions[0].ConversionRules, res.Versions[0].ConversionPointer = ruleList(t, frobberRules), rulesPointer
	return &schemas.Group{Name: name, Resources: []*schemas.Resource{res}}
}

// TestNewSetFromReusesUnchangedGroups: a group the next registry holds as
// it was keeps its compiled rules, a group built again is compiled
// again, and the Set converts as one compiled from nothing.
func TestNewSetFromReusesUnchangedGroups(t *testing.T) {
	kept, changed := frobberGroup(t, "kept.example.com"), frobberGroup(t, "changed.example.com")
	first, err := NewSetFrom(schemas.NewRegistry([]*schemas.Group{changed, kept}), nil)
	if err != nil {
		t.Fatal(err)
	}
	reg := schemas.NewRegistry([]*schemas.Group{frobberGroup(t, "changed.example.com"), kept})
	next, full := nextAndFull(t, reg, first)
	if next.Rules("kept.example.com", "Frobber", "v1") != first.Rules("kept.example.com", "Frobber", "v1") {
		t.Error("the unchanged group's rules were compiled again")
	}
	if next.Rules("changed.example.com", "Frobber", "v1") == first.Rules("changed.example.com", "Frobber", "v1") {
		t.Error("the changed group's rules were not compiled again")
	}
	if len(next.byHub) != len(full.byHub) || len(next.byKind) != len(full.byKind) {
		t.Errorf("next has %d hubs and %d groups, a full compile %d and %d", len(next.byHub), len(next.byKind), len(full.byHub), len(full.byKind))
	}
	for _, g := range []string{"kept.example.com", "changed.example.com"} {
		v1 := `{"apiVersion":"` + g + `/v1","kind":"Frobber","metadata":{"name":"f"},"spec":{"height":1,"param":"a","legacy":false}}`
		for _, to := range []string{"v2", "v3"} {
			mustConvertAlike(t, g+" v1 -> "+to, next, full, v1, g+"/"+to)
		}
		if len(next.byHub[[2]string{g + "/v2", "Frobber"}]) != 2 {
			t.Errorf("%s: want the round trips of v1 and v3 through the hub", g)
		}
	}
}

// TestNewSetIsNotReused: a Set of other rules than the declared ones
// gives nothing to NewSetFrom.
func TestNewSetIsNotReused(t *testing.T) {
	g := frobberGroup(t, "kept.example.com")
	reg := schemas.NewRegistry([]*schemas.Group{g})
	other, err := NewSet(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	next, err := NewSetFrom(reg, other)
	if err != nil {
		t.Fatal(err)
	}
	if next.Rules("kept.example.com", "Frobber", "v1") == other.Rules("kept.example.com", "Frobber", "v1") {
		t.Error("NewSetFrom took the rules of a Set of other rules")
	}
}

// TestNewSetFromReusesUnchangedResources: in a group built again, a
// resource the next registry holds as it was (the same *schemas.Resource)
// keeps its compiled rules and its round trips through the hub; a
// resource built again is compiled again.
func TestNewSetFromReusesUnchangedResources(t *testing.T) {
	const name = "one.example.com"
	kept := frobberGroup(t, name).Resources[0]
	changed := frobberGroup(t, name).Resources[0]
	changed.Kind, changed.ListKind = "Widget", "WidgetList"
	first, err := NewSetFrom(schemas.NewRegistry([]*schemas.Group{{Name: name, Resources: []*schemas.Resource{changed, kept}}}), nil)
	if err != nil {
		t.Fatal(err)
	}
	again := frobberGroup(t, name).Resources[0]
	again.Kind, again.ListKind = "Widget", "WidgetList"
	reg := schemas.NewRegistry([]*schemas.Group{{Name: name, Resources: []*schemas.Resource{again, kept}}})
	next, full := nextAndFull(t, reg, first)
	if next.Rules(name, "Frobber", "v1") != first.Rules(name, "Frobber", "v1") {
		t.Error("the unchanged resource's rules were compiled again")
	}
	if next.Rules(name, "Widget", "v1") == first.Rules(name, "Widget", "v1") {
		t.Error("the resource built again kept its old rules")
	}
	for _, kind := range []string{"Frobber", "Widget"} {
		key := [2]string{name + "/v2", kind}
		if len(next.byHub[key]) != 2 || len(full.byHub[key]) != 2 {
			t.Errorf("%s: %d round trips through the hub, a full compile %d; want those of v1 and v3", kind, len(next.byHub[key]), len(full.byHub[key]))
		}
		v1 := `{"apiVersion":"` + name + `/v1","kind":"` + kind + `","metadata":{"name":"f"},"spec":{"height":1,"param":"a","legacy":false}}`
		mustConvertAlike(t, kind+" v1 -> v3", next, full, v1, name+"/v3")
	}
}

// nextAndFull compiles reg's rules from first, and from nothing.
func nextAndFull(t *testing.T, reg *schemas.Registry, first *Set) (next, full *Set) {
	t.Helper()
	next, err := NewSetFrom(reg, first)
	if err != nil {
		t.Fatal(err)
	}
	full, err = NewSet(reg, DeclaredRules)
	if err != nil {
		t.Fatal(err)
	}
	return next, full
}

// mustConvertAlike converts obj to apiVersion with next and with full,
// and requires the same answer.
func mustConvertAlike(t *testing.T, what string, next, full *Set, obj, apiVersion string) {
	t.Helper()
	got, err := next.Convert([]byte(obj), apiVersion)
	if err != nil {
		t.Fatal(err)
	}
	want, err := full.Convert([]byte(obj), apiVersion)
	if err != nil {
		t.Fatal(err)
	}
	mustEqualJSON(t, what, string(got), string(want))
}
