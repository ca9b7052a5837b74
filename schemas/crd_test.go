package schemas

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestLoadCRDFile loads a file of two CRDs and checks everything kube
// serves from them.
func TestLoadCRDFile(t *testing.T) {
	reg, err := Load(filepath.Join("testdata", "crd"))
	if err != nil {
		t.Fatal(err)
	}
	w := reg.Resource("widgets.toys.example.com")
	if w == nil {
		t.Fatal("widgets missing")
	}
	got := fmt.Sprintf("%s %s %s %s %v %v %s %s %s", w.CRD, w.Kind, w.ListKind, w.Singular, w.ShortNames, w.Categories, w.Scope, w.StorageVersion, w.NameValidation)
	want := "widgets.toys.example.com Widget WidgetCollection widget [wd] [all toys] Namespaced v1 DNSSubdomain"
	if got != want {
		t.Errorf("widgets:\ngot  %s\nwant %s", got, want)
	}
	v1, beta := w.Version("v1"), w.Version("v1beta1")
	if v1 == nil || beta == nil {
		t.Fatalf("versions: %v", w.Versions)
	}
	checkWidgetV1(t, v1)
	if !beta.Served() || !beta.Deprecated || beta.DeprecationWarning != "toys.example.com/v1beta1 Widget is going away" {
		t.Errorf("v1beta1: served %v deprecated %v warning %q", beta.Served(), beta.Deprecated, beta.DeprecationWarning)
	}
	rules, _ := json.Marshal(beta.ConversionRules)
	if string(rules) != `[{"rename":{"from":"spec.height","to":"spec.size"}}]` ||
		beta.ConversionPointer != "/metadata/annotations/specd.io~1conversion/v1beta1" || beta.ConversionFile != "" {
		t.Errorf("v1beta1 rules %s at %s %s", rules, beta.ConversionFile, beta.ConversionPointer)
	}
	g := reg.Resource("gadgets.toys.example.com")
	if g == nil || g.ListKind != "GadgetList" || g.Singular != "gadget" || g.Scope != Cluster || g.Version("v1alpha1").Served() {
		t.Errorf("gadgets: %+v", g)
	}
	if gvs := reg.Group("toys.example.com").Versions; len(gvs) != 3 {
		t.Errorf("group versions: %d, want v1, v1beta1, v1alpha1", len(gvs))
	}
}

// TestCRDKindAnyCase: a CRD's kind may have any case, as kube's CRD
// validation allows (kube's e2e suite names its CRDs' kinds in lowercase);
// only specd's own schema format asks for UpperCamelCase.
func TestCRDKindAnyCase(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "g.yaml"), []byte(crd("gizmos", "gizmo", []string{"v1"}, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if g := reg.Resource("gizmos.toys.example.com"); g == nil || g.Kind != "gizmo" || g.ListKind != "gizmoList" || g.Singular != "gizmo" {
		t.Fatalf("gizmos: %+v", g)
	}
}

func checkWidgetV1(t *testing.T, v1 *ResourceVersion) {
	t.Helper()
	if v1.File != filepath.Join("testdata", "crd", "widgets.yaml") || v1.Pointer != "/spec/versions/0/schema/openAPIV3Schema" {
		t.Errorf("v1 at %s#%s", v1.File, v1.Pointer)
	}
	cols := fmt.Sprint(v1.PrinterColumns)
	if cols != "[{Size integer   0 .spec.size []} {Color string   1 .spec.color []}]" {
		t.Errorf("columns %s", cols)
	}
	if len(v1.SelectableFields) != 1 || v1.SelectableFields[0].JSONPath != ".spec.color" {
		t.Errorf("selectable fields %v", v1.SelectableFields)
	}
	if !v1.StatusSubresource || v1.Scale == nil || v1.Scale.SpecReplicasPath != ".spec.replicas" {
		t.Errorf("subresources: status %v scale %+v", v1.StatusSubresource, v1.Scale)
	}
	if v1.Schema == nil || v1.OpenAPI == nil {
		t.Fatal("v1 schema not compiled")
	}
	obj := map[string]any{"spec": map[string]any{"port": int64(0)}}
	if errs := v1.Schema.Validate(obj); len(errs) == 0 {
		t.Error("spec.port 0 passes the oneOf")
	}
	if p := v1.DeclarationPointer("printerColumns"); p != "/spec/versions/0/additionalPrinterColumns" {
		t.Errorf("printer columns declared at %s", p)
	}
	if p := v1.DeclarationPointer("scope"); p != "/spec/scope" {
		t.Errorf("scope declared at %s", p)
	}
}

// crd is a CRD of group toys.example.com with one version per name in
// versions (the first stored), and extra YAML lines added under spec.
func crd(plural, kind string, versions []string, spec string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: %s.toys.example.com\n", plural)
	fmt.Fprintf(&b, "spec:\n  group: toys.example.com\n  names: {kind: %s, plural: %s}\n  scope: Namespaced\n", kind, plural)
	b.WriteString(spec)
	b.WriteString("  versions:\n")
	for i, v := range versions {
		fmt.Fprintf(&b, "  - name: %s\n    served: true\n    storage: %v\n", v, i == 0)
		b.WriteString("    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec: {type: object, properties: {size: {type: integer}}}\n")
	}
	return b.String()
}

func TestCRDProblems(t *testing.T) {
	webhook := "  conversion: {strategy: Webhook}\n"
	tests := map[string]struct {
		files map[string]string
		want  []want
	}{
		"webhook without specd rules": {
			files: map[string]string{"w.yaml": crd("widgets", "Widget", []string{"v1", "v1beta1"}, webhook)},
			want:  []want{{"w.yaml", "/spec/conversion/strategy", "specd calls no conversion webhook. Declare specd conversion rules for the versions of widgets.toys.example.com instead"}},
		},
		"v1beta1 CRD": {
			files: map[string]string{"w.yaml": strings.Replace(crd("widgets", "Widget", []string{"v1"}, ""), "apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1", 1)},
			want:  []want{{"w.yaml", "/apiVersion", "convert the CRD to apiextensions.k8s.io/v1"}},
		},
		"name is not plural.group": {
			files: map[string]string{"w.yaml": strings.Replace(crd("widgets", "Widget", []string{"v1"}, ""), "name: widgets.toys", "name: widget.toys", 1)},
			want:  []want{{"w.yaml", "/metadata/name", `must be spec.names.plural+"."+spec.group (widgets.toys.example.com)`}},
		},
		"problems in the second document name its line": {
			files: map[string]string{"w.yaml": crd("widgets", "Widget", []string{"v1"}, "") + "---\n" + crd("gadgets", "1gadget", []string{"v1"}, "")},
			want: []want{
				{"w.yaml", "/spec/names/kind", "document at line 19: kind \"1gadget\": may have mixed case, but should otherwise match: a DNS-1035 label"},
				{"w.yaml", "/spec/names/singular", "document at line 19: singular \"1gadget\""},
			},
		},
		"schema problems point into the CRD": {
			files: map[string]string{"w.yaml": strings.Replace(crd("widgets", "Widget", []string{"v1"}, ""), "size: {type: integer}", "size: {type: integer}, l: {type: array}, r: {$ref: '#/x'}", 1)},
			want:  []want{{"w.yaml", "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/r/$ref", "$ref is not supported"}},
		},
		"structural problems point into the CRD": {
			files: map[string]string{"w.yaml": strings.Replace(crd("widgets", "Widget", []string{"v1"}, ""), "size: {type: integer}", "size: {type: integer}, l: {type: array}", 1)},
			want:  []want{{"w.yaml", "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/l", "schema 'items' must be non-null"}},
		},
		"missing schema, storage and served": {
			files: map[string]string{"w.yaml": "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.toys.example.com}\n" +
				"spec:\n  group: toys.example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions:\n  - name: v1\n"},
			want: []want{{"w.yaml", "/spec/versions/0/schema", "must be an object, not null"}},
		},
		"a kind from two CRD files": {
			files: map[string]string{
				"a.yaml": crd("widgets", "Widget", []string{"v1"}, ""),
				"b.yaml": crd("widgets", "Widget", []string{"v2"}, ""),
			},
			want: []want{{"a.yaml", "/spec/names/kind", "widgets.toys.example.com (kind Widget) is declared by CRD widgets.toys.example.com in b.yaml and by CRD widgets.toys.example.com in a.yaml"}},
		},
		"a kind from a CRD file and a specd file": {
			files: map[string]string{
				"a.yaml": crd("widgets", "Widget", []string{"v1"}, ""),
				"b.yaml": gv("toys.example.com", "v1", widget("Widget", "{}")),
			},
			want: []want{{"b.yaml", "/components/schemas/Widget/x-specd-resource", "is already declared in this group version at a.yaml#/spec/versions/0/schema/openAPIV3Schema"}},
		},
		"a kind from a CRD file and a specd file in other versions": {
			files: map[string]string{
				"a.yaml": crd("widgets", "Widget", []string{"v1"}, ""),
				"b.yaml": gv("toys.example.com", "v2", widget("Widget", "{}")),
			},
			want: []want{{"a.yaml", "/spec/names/kind", "widgets.toys.example.com (kind Widget) is declared by the schema file b.yaml and by CRD widgets.toys.example.com in a.yaml"}},
		},
		"rules for a version the CRD lacks": {
			files: map[string]string{"w.yaml": strings.Replace(crd("widgets", "Widget", []string{"v1", "v1beta1"}, ""), "name: widgets.toys.example.com\n",
				"name: widgets.toys.example.com\n  annotations: {specd.io/conversion: 'v2: []'}\n", 1)},
			want: []want{{"w.yaml", "/metadata/annotations/specd.io~1conversion/v2", `conversion rules for version "v2", which the CRD does not declare`}},
		},
		"a side file for no CRD": {
			files: map[string]string{
				"w.yaml":    crd("widgets", "Widget", []string{"v1"}, ""),
				"conv.yaml": "apiVersion: specd.io/v1alpha1\nkind: ConversionRules\nmetadata: {name: gizmos.toys.example.com}\nspec: {versions: {v1beta1: []}}\n",
			},
			want: []want{{"conv.yaml", "/metadata/name", "names CRD gizmos.toys.example.com, which no CRD file declares"}},
		},
		"other kinds of objects": {
			files: map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"},
			want:  []want{{"cm.yaml", "/kind", `kind "ConfigMap": a schema file of Kubernetes objects holds apiextensions.k8s.io/v1 CustomResourceDefinition objects`}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			matchProblems(t, loadProblems(t, tc.files), tc.want)
		})
	}
}

// TestCRDSideFile: a CRD with a conversion webhook loads with specd rules
// from a ConversionRules document beside it, and a change of that file
// changes the declaration.
func TestCRDSideFile(t *testing.T) {
	dir := t.TempDir()
	crdFile := filepath.Join(dir, "widgets.yaml")
	writeFile(t, crdFile, crd("widgets", "Widget", []string{"v1", "v1beta1"}, "  conversion: {strategy: Webhook}\n"))
	side := "apiVersion: specd.io/v1alpha1\nkind: ConversionRules\nmetadata: {name: widgets.toys.example.com}\nspec:\n  versions:\n    v1beta1:\n    - rename: {from: spec.size, to: spec.size}\n"
	sideFile := filepath.Join(dir, "conversion.yaml")
	writeFile(t, sideFile, side)
	l := NewLoader(dir)
	reg, _, err := l.Load()
	if err != nil {
		t.Fatal(err)
	}
	beta := reg.Resource("widgets.toys.example.com").Version("v1beta1")
	if beta.ConversionFile != sideFile || beta.ConversionPointer != "/spec/versions/v1beta1" || len(beta.ConversionRules) != 1 {
		t.Errorf("v1beta1 rules at %s#%s: %v", beta.ConversionFile, beta.ConversionPointer, beta.ConversionRules)
	}
	writeFile(t, sideFile, strings.Replace(side, "    v1beta1:\n    - rename: {from: spec.size, to: spec.size}\n", "    v1beta1: []\n", 1))
	next, _, err := l.Load()
	if err != nil {
		t.Fatal(err)
	}
	nbeta := next.Resource("widgets.toys.example.com").Version("v1beta1")
	if len(nbeta.ConversionRules) != 0 || SameDeclaration(reg.Resource("widgets.toys.example.com"), next.Resource("widgets.toys.example.com")) {
		t.Errorf("after the side file changed: rules %v, same declaration", nbeta.ConversionRules)
	}
}

// TestCRDJSONAndList: a CRD as JSON, and a List of CRDs as kubectl get
// -o yaml writes it.
func TestCRDJSONAndList(t *testing.T) {
	dir := t.TempDir()
	j, err := yaml.YAMLToJSON([]byte(crd("widgets", "Widget", []string{"v1"}, "")))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "widgets.json"), string(j))
	list := "apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(strings.TrimSpace(crd("gadgets", "Gadget", []string{"v1"}, "")), "\n", "\n  ") + "\n"
	writeFile(t, filepath.Join(dir, "list.yaml"), list)
	reg, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{"widgets.toys.example.com", "gadgets.toys.example.com"} {
		if reg.Resource(r) == nil {
			t.Errorf("%s missing", r)
		}
	}
}

// TestParseCRD is the path of CRD objects written through the API.
func TestParseCRD(t *testing.T) {
	decl := ParseCRD("customresourcedefinitions/widgets.toys.example.com", []byte(crd("widgets", "Widget", []string{"v1"}, "")))
	if err := decl.Err(); err != nil {
		t.Fatal(err)
	}
	l := NewLoader(filepath.Join("testdata", "crd"))
	_, _, err := l.LoadWith(decl)
	if err == nil || !strings.Contains(err.Error(), "customresourcedefinitions/widgets.toys.example.com#/spec/names/kind: kind Widget is already declared in this group version at "+filepath.Join("testdata", "crd", "widgets.yaml")) {
		t.Errorf("a CRD object and a CRD file of one resource: %v", err)
	}
	reg, _, err := NewLoader("").LoadWith(decl)
	if err != nil {
		t.Fatal(err)
	}
	if res := reg.Resource("widgets.toys.example.com"); res == nil || res.Versions[0].File != decl.Source() {
		t.Errorf("widgets from the API: %+v", res)
	}
	bad := ParseCRD("customresourcedefinitions/x", []byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"x"},"spec":{}}`))
	if len(bad.Problems()) == 0 {
		t.Error("an empty spec has no problems")
	}
}

func writeFile(t *testing.T, name, data string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCRDFileOneCRDChanged: in a file of two CRDs, a change of one keeps
// the other's declaration the same, so a reload leaves its watches alone.
func TestCRDFileOneCRDChanged(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "crds.yaml")
	widgets, gadgets := crd("widgets", "Widget", []string{"v1"}, ""), crd("gadgets", "Gadget", []string{"v1"}, "")
	writeFile(t, name, widgets+"---\n"+gadgets)
	l := NewLoader(dir)
	before, _, err := l.Load()
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, name, widgets+"---\n"+strings.Replace(gadgets, "scope: Namespaced", "scope: Cluster", 1))
	after, _, err := l.Load()
	if err != nil {
		t.Fatal(err)
	}
	if !SameDeclaration(before.Resource("widgets.toys.example.com"), after.Resource("widgets.toys.example.com")) {
		t.Error("widgets changed with gadgets")
	}
	if SameDeclaration(before.Resource("gadgets.toys.example.com"), after.Resource("gadgets.toys.example.com")) {
		t.Error("gadgets did not change")
	}
}

// TestParseCRDInstalling: a CRD object marked installing (its names
// accepted, not yet Established) is loaded but not served; unmarked, it
// is served as the same declaration.
func TestParseCRDInstalling(t *testing.T) {
	const src = "customresourcedefinitions/widgets.toys.example.com"
	doc := []byte(crd("widgets", "Widget", []string{"v1"}, ""))
	decl := ParseCRD(src, doc)
	decl.MarkInstalling()
	if decl.ServedDigest() == decl.Digest() {
		t.Error("the served digest does not tell an installing CRD apart")
	}
	reg, _, err := NewLoader("").LoadWith(decl)
	if err != nil {
		t.Fatal(err)
	}
	installing := reg.Resource("widgets.toys.example.com")
	if installing == nil || !installing.Installing || installing.Served() {
		t.Fatalf("an installing CRD's resource: %+v", installing)
	}
	if reg.Lookup("toys.example.com", "v1", "widgets") != nil {
		t.Error("an installing CRD's resource is served")
	}
	for _, g := range reg.Groups() {
		if len(g.ServedVersions()) > 0 {
			t.Errorf("discovery would list %s for an installing CRD", g.Name)
		}
	}
	if rv := reg.Installing("toys.example.com", "v1", "widgets"); rv == nil || rv.Resource != installing {
		t.Errorf("Installing does not find the resource: %+v", rv)
	}
	served, _, err := NewLoader("").LoadWith(ParseCRD(src, doc))
	if err != nil {
		t.Fatal(err)
	}
	res := served.Resource("widgets.toys.example.com")
	if !res.Served() || served.Installing("toys.example.com", "v1", "widgets") != nil || served.Lookup("toys.example.com", "v1", "widgets") == nil {
		t.Errorf("the Established CRD's resource is not served: %+v", res)
	}
	if !SameDeclaration(installing, res) {
		t.Error("installing and served are not the same declaration: the reload would prove it again")
	}
}
