package schemas

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// versionFacts is what a ResourceVersion says about its version.
type versionFacts struct {
	Storage, Served, Deprecated bool
	Warning                     string
	Rules                       []any
	RulesAt                     string
}

func factsOf(reg *Registry, group, plural string) map[string]versionFacts {
	out := map[string]versionFacts{}
	for _, rv := range reg.Group(group).Resource(plural).Versions {
		out[rv.Version] = versionFacts{
			Storage: rv.Storage, Served: rv.Served(), Deprecated: rv.Deprecated,
			Warning: rv.DeprecationWarning, Rules: rv.ConversionRules, RulesAt: rv.ConversionPointer,
		}
	}
	return out
}

func TestLoadVersioning(t *testing.T) {
	const g = "a.example.com"
	const sx = "/components/schemas/Widget/x-specd-resource"
	tests := map[string]struct {
		files map[string]string
		want  map[string]versionFacts
	}{
		"one version: stored and served": {
			files: map[string]string{"v1.yaml": gv(g, "v1", widget("Widget", "{}"))},
			want:  map[string]versionFacts{"v1": {Storage: true, Served: true}},
		},
		"rules are kept as decoded JSON, with their pointer": {
			files: map[string]string{
				"v1.yaml": gv(g, "v1", widget("Widget", "{storage: true}")),
				"v2beta1.yaml": gv(g, "v2beta1", widget("Widget",
					`{conversion: {rules: [{rename: {from: .spec.color, to: .spec.colour}}, {constant: {field: .spec.size, value: 3}}]}}`)),
			},
			want: map[string]versionFacts{
				"v1": {Storage: true, Served: true},
				"v2beta1": {Served: true, RulesAt: sx + "/conversion/rules", Rules: []any{
					map[string]any{"rename": map[string]any{"from": ".spec.color", "to": ".spec.colour"}},
					map[string]any{"constant": map[string]any{"field": ".spec.size", "value": float64(3)}},
				}},
			},
		},
		"an empty rules list is given": {
			files: map[string]string{
				"v1.yaml":      gv(g, "v1", widget("Widget", "{storage: true}")),
				"v1beta1.yaml": gv(g, "v1beta1", widget("Widget", "{conversion: {rules: []}}")),
			},
			want: map[string]versionFacts{
				"v1":      {Storage: true, Served: true},
				"v1beta1": {Served: true, Rules: []any{}, RulesAt: sx + "/conversion/rules"},
			},
		},
		"served false hides a version, even the storage version": {
			files: map[string]string{
				"v1.yaml":       gv(g, "v1", widget("Widget", "{storage: true, served: false}")),
				"v1alpha1.yaml": gv(g, "v1alpha1", widget("Widget", "{served: false}")),
				"v2.yaml":       gv(g, "v2", widget("Widget", "{served: true}")),
			},
			want: map[string]versionFacts{
				"v1":       {Storage: true},
				"v1alpha1": {},
				"v2":       {Served: true},
			},
		},
		"deprecated: kube's default message names the newest served version to use": {
			files: map[string]string{
				"v1.yaml":       gv(g, "v1", widget("Widget", "{storage: true}")),
				"v1beta1.yaml":  gv(g, "v1beta1", widget("Widget", "{deprecated: true}")),
				"v1alpha1.yaml": gv(g, "v1alpha1", widget("Widget", "{deprecated: true}")),
				"v2.yaml":       gv(g, "v2", widget("Widget", "{served: false}")),
			},
			want: map[string]versionFacts{
				"v1":       {Storage: true, Served: true},
				"v1beta1":  {Served: true, Deprecated: true, Warning: "a.example.com/v1beta1 Widget is deprecated; use a.example.com/v1 Widget"},
				"v1alpha1": {Served: true, Deprecated: true, Warning: "a.example.com/v1alpha1 Widget is deprecated; use a.example.com/v1 Widget"},
				"v2":       {},
			},
		},
		"deprecated without a newer version: the short message": {
			files: map[string]string{
				"v1.yaml":      gv(g, "v1", widget("Widget", "{storage: true, deprecated: true}")),
				"v1beta1.yaml": gv(g, "v1beta1", widget("Widget", "{}")),
			},
			want: map[string]versionFacts{
				"v1":      {Storage: true, Served: true, Deprecated: true, Warning: "a.example.com/v1 Widget is deprecated"},
				"v1beta1": {Served: true},
			},
		},
		"deprecated with a message": {
			files: map[string]string{
				"v1.yaml": gv(g, "v1", widget("Widget", `{deprecated: true, deprecationWarning: "widgets go away in 2027; use gadgets"}`)),
			},
			want: map[string]versionFacts{
				"v1": {Storage: true, Served: true, Deprecated: true, Warning: "widgets go away in 2027; use gadgets"},
			},
		},
		"deprecated: false is not deprecated": {
			files: map[string]string{"v1.yaml": gv(g, "v1", widget("Widget", "{deprecated: false}"))},
			want:  map[string]versionFacts{"v1": {Storage: true, Served: true}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			reg, err := LoadFS(mapFS(tc.files))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, factsOf(reg, g, "widgets")); diff != "" {
				t.Errorf("versions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadVersioningProblems(t *testing.T) {
	const g = "a.example.com"
	const sx = "/components/schemas/Widget/x-specd-resource"
	tests := map[string]struct {
		files map[string]string
		want  []want
	}{
		"conversion on the storage version": {
			files: map[string]string{
				"v1.yaml":      gv(g, "v1", widget("Widget", "{storage: true, conversion: {rules: []}}")),
				"v1beta1.yaml": gv(g, "v1beta1", widget("Widget", "{conversion: {rules: []}}")),
			},
			want: []want{{"v1.yaml", sx + "/conversion", "the storage version v1 is the hub of kind Widget"}},
		},
		"conversion on the only version, which is the storage version": {
			files: map[string]string{"v1.yaml": gv(g, "v1", widget("Widget", "{conversion: {rules: [{rename: {}}]}}"))},
			want:  []want{{"v1.yaml", sx + "/conversion", "the storage version v1 is the hub"}},
		},
		"conversion of the wrong shape": {
			files: map[string]string{
				"v1.yaml":       gv(g, "v1", widget("Widget", "{storage: true}")),
				"v1beta1.yaml":  gv(g, "v1beta1", widget("Widget", "{conversion: [rename]}")),
				"v1beta2.yaml":  gv(g, "v1beta2", widget("Widget", "{conversion: {rules: {rename: {}}, strategy: None}}")),
				"v1alpha1.yaml": gv(g, "v1alpha1", widget("Widget", "{conversion: {}}")),
				"v1alpha2.yaml": gv(g, "v1alpha2", widget("Widget", "{conversion: {rules: null}}")),
			},
			want: []want{
				{"v1beta1.yaml", sx + "/conversion", "must be an object, not a list"},
				{"v1beta2.yaml", sx + "/conversion/rules", "must be a list, not an object"},
				{"v1beta2.yaml", sx + "/conversion/strategy", `unknown field "strategy"`},
				{"v1alpha1.yaml", sx + "/conversion/rules", "rules is required"},
				{"v1alpha2.yaml", sx + "/conversion/rules", "must be a list, not null"},
			},
		},
		"served, deprecated and deprecationWarning of the wrong type": {
			files: map[string]string{"v1.yaml": gv(g, "v1", widget("Widget", "{served: no, deprecated: 1, deprecationWarning: [x]}"))},
			want: []want{
				{"v1.yaml", sx + "/served", "must be a boolean, not a string"},
				{"v1.yaml", sx + "/deprecated", "must be a boolean, not a number"},
				{"v1.yaml", sx + "/deprecationWarning", "must be a string, not a list"},
			},
		},
		"deprecationWarning breaking kube's rules": {
			files: map[string]string{
				"v1.yaml":       gv(g, "v1", widget("Widget", `{storage: true, deprecationWarning: "old"}`)),
				"v1beta1.yaml":  gv(g, "v1beta1", widget("Widget", `{deprecated: true, deprecationWarning: "`+strings.Repeat("x", 257)+`"}`)),
				"v1alpha1.yaml": gv(g, "v1alpha1", widget("Widget", `{deprecated: true, deprecationWarning: "two\nlines"}`)),
			},
			want: []want{
				{"v1.yaml", sx + "/deprecationWarning", "can only be set on a version with deprecated: true"},
				{"v1beta1.yaml", sx + "/deprecationWarning", "257 bytes long: at most 256"},
				{"v1alpha1.yaml", sx + "/deprecationWarning", "printable UTF-8"},
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			matchProblems(t, loadProblems(t, tc.files), tc.want)
		})
	}
}

func TestDisable(t *testing.T) {
	files := map[string]string{
		"a/v1.yaml":      gv("a.example.com", "v1", widget("Widget", "{storage: true}")),
		"a/v1beta1.yaml": gv("a.example.com", "v1beta1", widget("Widget", "{deprecated: true}")),
		"a/v2.yaml":      gv("a.example.com", "v2", widget("Widget", "{}")),
		"b/v1.yaml":      gv("b.example.com", "v1", widget("Gadget", "{}")),
	}
	reg, err := LoadFS(mapFS(files))
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		names     []string
		preferred map[string]string // group -> preferred version, "" for none
		served    map[string]bool   // G/V/plural -> Lookup finds it
		warning   string            // of a.example.com/v1beta1 widgets
	}{
		"nothing": {
			preferred: map[string]string{"a.example.com": "v2", "b.example.com": "v1"},
			served:    map[string]bool{"a.example.com/v2/widgets": true, "a.example.com/v1/widgets": true, "a.example.com/v1beta1/widgets": true, "b.example.com/v1/gadgets": true},
			warning:   "a.example.com/v1beta1 Widget is deprecated; use a.example.com/v2 Widget",
		},
		"a group version: the preferred one": {
			names:     []string{"a.example.com/v2"},
			preferred: map[string]string{"a.example.com": "v1", "b.example.com": "v1"},
			served:    map[string]bool{"a.example.com/v2/widgets": false, "a.example.com/v1/widgets": true, "a.example.com/v1beta1/widgets": true, "b.example.com/v1/gadgets": true},
			warning:   "a.example.com/v1beta1 Widget is deprecated; use a.example.com/v1 Widget",
		},
		"one resource of a group version": {
			names:     []string{"a.example.com/v2/widgets"},
			preferred: map[string]string{"a.example.com": "v1", "b.example.com": "v1"},
			served:    map[string]bool{"a.example.com/v2/widgets": false, "a.example.com/v1/widgets": true, "b.example.com/v1/gadgets": true},
			warning:   "a.example.com/v1beta1 Widget is deprecated; use a.example.com/v1 Widget",
		},
		"a whole group, and a version of another": {
			names:     []string{"b.example.com", "a.example.com/v1", "a.example.com/v2"},
			preferred: map[string]string{"a.example.com": "v1beta1", "b.example.com": ""},
			served:    map[string]bool{"a.example.com/v2/widgets": false, "a.example.com/v1/widgets": false, "a.example.com/v1beta1/widgets": true, "b.example.com/v1/gadgets": false},
			warning:   "a.example.com/v1beta1 Widget is deprecated",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := reg.Disable(tc.names...)
			if err != nil {
				t.Fatal(err)
			}
			for group, want := range tc.preferred {
				p, v := got.Group(group).PreferredVersion(), ""
				if p != nil {
					v = p.Version
				}
				if v != want {
					t.Errorf("%s: preferred version %q, want %q", group, v, want)
				}
			}
			for path, want := range tc.served {
				parts := strings.Split(path, "/")
				if found := got.Lookup(parts[0], parts[1], parts[2]) != nil; found != want {
					t.Errorf("Lookup(%s) found %v, want %v", path, found, want)
				}
			}
			if w := got.Group("a.example.com").Resource("widgets").Version("v1beta1").DeprecationWarning; w != tc.warning {
				t.Errorf("warning %q, want %q", w, tc.warning)
			}
			// The registry Disable was called on is unchanged.
			if reg.Lookup("a.example.com", "v2", "widgets") == nil || reg.Group("b.example.com").PreferredVersion() == nil {
				t.Error("Disable changed the registry it was called on")
			}
			// Versions of a resource and of a group version are the same
			// values in the copy.
			for _, g := range got.Groups() {
				for _, gv := range g.Versions {
					for _, rv := range gv.Resources {
						if g.Resource(rv.Resource.Plural).Version(gv.Version) != rv {
							t.Errorf("%s/%s %s: the group version and the resource hold different copies", g.Name, gv.Version, rv.Resource.Plural)
						}
					}
				}
			}
		})
	}
}

func TestDisableUnknownNames(t *testing.T) {
	reg, err := LoadFS(mapFS(map[string]string{"v1.yaml": gv("a.example.com", "v1", widget("Widget", "{}"))}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = reg.Disable("a.example.com/v2", "nope.example.com", "a.example.com", "a.example.com/v1/gadgets")
	if !errors.Is(err, ErrNotDeclared) {
		t.Fatalf("error %v, want ErrNotDeclared", err)
	}
	want := "schemas: not declared: group version \"a.example.com/v2\" (a.example.com has v1)\nschemas: not declared: group \"nope.example.com\"\nschemas: not declared: resource \"a.example.com/v1/gadgets\" (a.example.com/v1 has widgets)"
	if err.Error() != want {
		t.Errorf("error:\n%s\nwant:\n%s", err, want)
	}
}
