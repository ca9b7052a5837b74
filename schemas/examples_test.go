package schemas

import (
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// repoRoot is the root of the specd repository.
func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot find the test file")
	}
	return filepath.Dir(filepath.Dir(file))
}

// summary describes a registry in one line per group version resource.
func summary(reg *Registry) []string {
	var out []string
	for _, g := range reg.Groups() {
		for _, gv := range g.Versions {
			for _, rv := range gv.Resources {
				r := rv.Resource
				line := fmt.Sprintf("%s/%s %s kind=%s list=%s singular=%s scope=%s short=%v categories=%v storage=%v status=%v columns=%d selectable=%d",
					g.Name, gv.Version, r.Plural, r.Kind, r.ListKind, r.Singular, r.Scope, r.ShortNames, r.Categories,
					rv.Storage, rv.StatusSubresource, len(rv.PrinterColumns), len(rv.SelectableFields))
				out = append(out, line)
			}
		}
	}
	return out
}

func TestLoadExamples(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "examples", "schemas")
	reg, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"fleet.example.com/v1 fleets kind=Fleet list=FleetList singular=fleet scope=Namespaced short=[flt] categories=[maritime] storage=true status=true columns=4 selectable=0",
		"fleet.example.com/v1 ships kind=Ship list=ShipList singular=ship scope=Namespaced short=[shp] categories=[maritime] storage=true status=true columns=4 selectable=0",
		"library.example.com/v1 books kind=Book list=BookList singular=book scope=Namespaced short=[bk] categories=[library] storage=true status=true columns=4 selectable=2",
		"library.example.com/v1beta1 books kind=Book list=BookList singular=book scope=Namespaced short=[bk] categories=[library] storage=false status=true columns=4 selectable=2",
		"shop.example.com/v1 books kind=Book list=BookList singular=book scope=Namespaced short=[] categories=[shop] storage=true status=false columns=2 selectable=0",
		"shop.example.com/v1 warehouses kind=Warehouse list=WarehouseList singular=warehouse scope=Cluster short=[wh] categories=[shop] storage=true status=false columns=2 selectable=0",
		"shop.example.com/v1 widgets kind=Widget list=WidgetList singular=widget scope=Namespaced short=[wg] categories=[shop] storage=true status=true columns=5 selectable=1",
		"shop.example.com/v2beta1 widgets kind=Widget list=WidgetList singular=widget scope=Namespaced short=[wg] categories=[shop] storage=false status=true columns=5 selectable=1",
	}
	if diff := cmp.Diff(want, summary(reg)); diff != "" {
		t.Errorf("registry (-want +got):\n%s", diff)
	}
	rv := reg.Lookup("shop.example.com", "v1", "widgets")
	if rv == nil || rv.Schema == nil || rv.OpenAPI == nil {
		t.Fatalf("widgets: %+v", rv)
	}
	if got, want := rv.File, filepath.Join(dir, "shop.example.com", "v1.yaml"); got != want {
		t.Errorf("File = %q, want %q", got, want)
	}
	if rv.Pointer != "/components/schemas/Widget" || rv.APIVersion() != "shop.example.com/v1" || rv.Resource.StorageVersion != "v1" {
		t.Errorf("widgets: pointer %q, apiVersion %q, storage %q", rv.Pointer, rv.APIVersion(), rv.Resource.StorageVersion)
	}
	// The loader's own extensions are not part of the published schema.
	for k := range rv.OpenAPI.Extensions {
		if strings.HasPrefix(k, "x-specd") {
			t.Errorf("OpenAPI schema keeps the loader's extension %s", k)
		}
	}
	wantCol := PrinterColumn{Name: "Warehouse", Type: "string", JSONPath: ".spec.warehouse", Description: "The warehouse that stocks the widget.", Priority: 1}
	if got := rv.PrinterColumns[3]; !reflect.DeepEqual(got, wantCol) {
		t.Errorf("column 3 = %+v, want %+v", got, wantCol)
	}
}

// TestLoadOrder: groups by name, versions by Kubernetes priority (the
// preferred first), resources by plural.
// TestServedStorage: the storage version of a served resource; nil for
// one not there, and for no registry.
func TestServedStorage(t *testing.T) {
	reg, err := Load(filepath.Join(repoRoot(t), "examples", "schemas"))
	if err != nil {
		t.Fatal(err)
	}
	if rv := reg.ServedStorage("books.library.example.com"); rv == nil || rv.Version != "v1" {
		t.Errorf("books.library.example.com: %v, want its storage version v1", rv)
	}
	if rv := reg.ServedStorage("nothing.example.com"); rv != nil {
		t.Errorf("a resource not there: %v", rv)
	}
	if rv := (*Registry)(nil).ServedStorage("books.library.example.com"); rv != nil {
		t.Errorf("no registry: %v", rv)
	}
}

func TestLoadOrder(t *testing.T) {
	widget := func(name, ext string) string {
		return name + ":\n  type: object\n  x-specd-resource: " + ext + "\n"
	}
	files := map[string]string{
		"b/v1alpha1.yaml": gv("b.example.com", "v1alpha1", widget("Zebra", "{}")+widget("Widget", "{}")),
		"b/v1.yaml":       gv("b.example.com", "v1", widget("Widget", "{storage: true}")+widget("Apple", "")),
		"b/v2beta1.yml":   gv("b.example.com", "v2beta1", widget("Widget", "{}")),
		"b/v10.yaml":      gv("b.example.com", "v10", widget("Kiwi", "{}")),
		"a/v1beta2.yaml":  gv("a.example.com", "v1beta2", widget("Widget", "{}")),
	}
	reg, err := LoadFS(mapFS(files))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range reg.Groups() {
		var vs []string
		for _, gv := range g.Versions {
			var plurals []string
			for _, rv := range gv.Resources {
				plurals = append(plurals, rv.Resource.Plural)
			}
			vs = append(vs, gv.Version+"["+strings.Join(plurals, ",")+"]")
		}
		var rs []string
		for _, r := range g.Resources {
			var rvs []string
			for _, rv := range r.Versions {
				rvs = append(rvs, rv.Version)
			}
			rs = append(rs, r.Plural+"("+strings.Join(rvs, ",")+" storage "+r.StorageVersion+")")
		}
		got = append(got, g.Name+" preferred "+g.PreferredVersion().Version+": "+strings.Join(vs, " ")+"; "+strings.Join(rs, " "))
	}
	want := []string{
		"a.example.com preferred v1beta2: v1beta2[widgets]; widgets(v1beta2 storage v1beta2)",
		"b.example.com preferred v10: v10[kiwis] v1[apples,widgets] v2beta1[widgets] v1alpha1[widgets,zebras]; apples(v1 storage v1) kiwis(v10 storage v10) widgets(v1,v2beta1,v1alpha1 storage v1) zebras(v1alpha1 storage v1alpha1)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if rv := reg.Lookup("b.example.com", "v2beta1", "widgets"); rv == nil || rv.Storage || rv.File != "b/v2beta1.yml" {
		t.Errorf("Lookup v2beta1 widgets = %+v", rv)
	}
}

func TestDefaultPlural(t *testing.T) {
	tests := map[string]string{
		"Widget": "widgets", "Policy": "policies", "Gateway": "gateways", "Class": "classes",
		"Box": "boxes", "Match": "matches", "Mesh": "meshes", "Key": "keys",
		"DNSRecord": "dnsrecords", "Y": "ys",
	}
	for kind, want := range tests {
		if got := defaultPlural(kind); got != want {
			t.Errorf("defaultPlural(%q) = %q, want %q", kind, got, want)
		}
	}
}

func BenchmarkLoadExamples(b *testing.B) {
	dir := filepath.Join(repoRoot(b), "examples", "schemas")
	for b.Loop() {
		if _, err := Load(dir); err != nil {
			b.Fatal(err)
		}
	}
}
