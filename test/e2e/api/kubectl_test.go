package api

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"syscall"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/specd-io/specd/test/e2e/harness"
)

// TestKubectl drives one specd with kubectl through the life of a few
// objects. The steps share the server and run in order.
func TestKubectl(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, s)

	t.Run("api-resources", func(t *testing.T) {
		tb := harness.ParseTable(t, k.OK(t, "api-resources"))
		if want := []string{"NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"}; !slices.Equal(tb.Columns, want) {
			t.Fatalf("columns %v, want %v", tb.Columns, want)
		}
		for _, r := range harness.ExampleResources {
			var row map[string]string
			for _, candidate := range tb.Rows {
				if candidate["NAME"] == r.Plural && candidate["APIVERSION"] == r.APIVersion() {
					row = candidate
				}
			}
			if row == nil {
				t.Errorf("no row for %s %s in\n%s", r.Plural, r.APIVersion(), k.OK(t, "api-resources"))
				continue
			}
			want := map[string]string{
				"NAME": r.Plural, "SHORTNAMES": strings.Join(r.ShortNames, ","), "APIVERSION": r.APIVersion(),
				"NAMESPACED": fmt.Sprint(r.Namespaced), "KIND": r.Kind,
			}
			if !maps.Equal(row, want) {
				t.Errorf("api-resources row %v, want %v", row, want)
			}
		}
		names := strings.Fields(k.OK(t, "api-resources", "--api-group", harness.LibraryBooks.Group, "-o", "name"))
		if want := []string{harness.LibraryBooks.GroupResource()}; !slices.Equal(names, want) {
			t.Errorf("api-resources --api-group %s -o name: %v, want %v", harness.LibraryBooks.Group, names, want)
		}
	})

	files := map[string]string{
		"w1":        k.Manifest(t, "w1.yaml", harness.WidgetYAML("default", "w1")),
		"w2":        k.Manifest(t, "w2.yaml", harness.WidgetYAML("team-a", "w2")),
		"wh1":       k.Manifest(t, "wh1.yaml", harness.WarehouseYAML("wh1")),
		"shop-book": k.Manifest(t, "shop-book.yaml", harness.BookYAML(harness.ShopBooks, "default", "shop-book")),
		"lib-book":  k.Manifest(t, "lib-book.yaml", harness.BookYAML(harness.LibraryBooks, "default", "lib-book")),
	}

	t.Run("create -f", func(t *testing.T) {
		if got := strings.TrimSpace(k.OK(t, "create", "namespace", "team-a")); got != "namespace/team-a created" {
			t.Errorf("create namespace team-a: %q", got)
		}
		for name, want := range map[string]string{
			"w1":        "widget.shop.example.com/w1 created",
			"w2":        "widget.shop.example.com/w2 created",
			"wh1":       "warehouse.shop.example.com/wh1 created",
			"shop-book": "book.shop.example.com/shop-book created",
			"lib-book":  "book.library.example.com/lib-book created",
		} {
			if got := strings.TrimSpace(k.OK(t, "create", "-f", files[name])); got != want {
				t.Errorf("create -f %s: %q, want %q", name, got, want)
			}
		}
	})

	t.Run("get", func(t *testing.T) {
		tb := harness.ParseTable(t, k.OK(t, "get", "widgets"))
		if want := append([]string{"NAME"}, harness.WidgetPrinterColumns...); !slices.Equal(tb.Columns, want) {
			t.Errorf("get widgets columns %v, want %v", tb.Columns, want)
		}
		if names := tb.Column("NAME"); !slices.Equal(names, []string{"w1"}) {
			t.Errorf("get widgets in default: %v, want [w1]", names)
		}
		if row := tb.Row("NAME", "w1"); row == nil || row["COLOR"] != "red" || row["SIZE"] != "10" || row["PHASE"] != "" || row["AGE"] == "" {
			t.Errorf("get widgets row of w1: %v, want COLOR red, SIZE 10, no PHASE, an AGE", row)
		}
		wide := harness.ParseTable(t, k.OK(t, "get", "widgets", "-o", "wide"))
		if !slices.Contains(wide.Columns, "WAREHOUSE") {
			t.Errorf("get widgets -o wide columns %v lack the priority-1 WAREHOUSE", wide.Columns)
		}
		tb = harness.ParseTable(t, k.OK(t, "get", "warehouses"))
		if want := []string{"NAME", "CITY", "CAPACITY"}; !slices.Equal(tb.Columns, want) {
			t.Errorf("get warehouses columns %v, want %v", tb.Columns, want)
		}
		if row := tb.Row("NAME", "wh1"); row == nil || row["CITY"] != "Lisbon" || row["CAPACITY"] != "500" {
			t.Errorf("get warehouses row of wh1: %v, want CITY Lisbon, CAPACITY 500", row)
		}
		// Every way kubectl names a resource resolves to the same one.
		for _, form := range []string{"widgets", "widget", "wg", "Widget", "widgets.shop.example.com",
			"widget.shop.example.com", "widgets.v1.shop.example.com"} {
			got := strings.TrimSpace(k.OK(t, "get", form, "w1", "-o", "name"))
			if got != "widget.shop.example.com/w1" {
				t.Errorf("get %s w1 -o name: %q, want widget.shop.example.com/w1", form, got)
			}
		}
		got := strings.Fields(k.OK(t, "get", "warehouses", "-o", "name"))
		if !slices.Equal(got, []string{"warehouse.shop.example.com/wh1"}) {
			t.Errorf("get warehouses -o name: %v", got)
		}
		got = strings.Fields(k.OK(t, "get", "widgets", "-n", "team-a", "-o", "name"))
		if !slices.Equal(got, []string{"widget.shop.example.com/w2"}) {
			t.Errorf("get widgets -n team-a -o name: %v", got)
		}
	})

	t.Run("get -o yaml", func(t *testing.T) {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(k.OK(t, "get", "widget", "w1", "-o", "yaml")), &obj); err != nil {
			t.Fatal(err)
		}
		checkStoredWidget(t, obj, "default", "w1")
	})

	t.Run("get -o json", func(t *testing.T) {
		obj := harness.DecodeJSON(t, k.OK(t, "get", "widget", "w1", "-o", "json"))
		checkStoredWidget(t, obj, "default", "w1")

		wh := harness.DecodeJSON(t, k.OK(t, "get", "warehouse", "wh1", "-o", "json"))
		if ns, ok := harness.Path(wh, "metadata", "namespace").(string); ok && ns != "" {
			t.Errorf("cluster-scoped warehouse has metadata.namespace %q", ns)
		}
		if got := harness.Path(wh, "spec", "address", "city"); got != "Lisbon" {
			t.Errorf("warehouse spec.address.city = %v, want Lisbon", got)
		}

		list := harness.DecodeJSON(t, k.OK(t, "get", "widgets", "-o", "json"))
		items, _ := list["items"].([]any)
		if len(items) != 1 || harness.Path(items[0].(map[string]any), "metadata", "name") != "w1" {
			t.Errorf("get widgets -o json items: %v", items)
		}
	})

	t.Run("get -A", func(t *testing.T) {
		tb := harness.ParseTable(t, k.OK(t, "get", "widgets", "-A"))
		if len(tb.Columns) < 2 || tb.Columns[0] != "NAMESPACE" || tb.Columns[1] != "NAME" {
			t.Errorf("get -A columns %v, want NAMESPACE NAME ...", tb.Columns)
		}
		var got []string
		for _, r := range tb.Rows {
			got = append(got, r["NAMESPACE"]+"/"+r["NAME"])
		}
		if want := []string{"default/w1", "team-a/w2"}; !slices.Equal(got, want) {
			t.Errorf("get widgets -A: %v, want %v", got, want)
		}
		// kubectl pages through a list with limit and continue.
		got = strings.Fields(k.OK(t, "get", "widgets", "-A", "--chunk-size", "1", "-o", "name"))
		if want := []string{"widget.shop.example.com/w1", "widget.shop.example.com/w2"}; !slices.Equal(got, want) {
			t.Errorf("get widgets -A --chunk-size 1: %v, want %v", got, want)
		}
	})

	t.Run("kind.group", func(t *testing.T) {
		for form, want := range map[string]string{
			"books.shop.example.com":    "book.shop.example.com/shop-book",
			"books.library.example.com": "book.library.example.com/lib-book",
			"book.library.example.com":  "book.library.example.com/lib-book",
		} {
			got := strings.Fields(k.OK(t, "get", form, "-o", "name"))
			if !slices.Equal(got, []string{want}) {
				t.Errorf("get %s -o name: %v, want [%s]", form, got, want)
			}
		}
		// Categories name every resource that declares them.
		got := strings.Fields(k.OK(t, "get", "shop", "-o", "name"))
		slices.Sort(got)
		want := []string{"book.shop.example.com/shop-book", "warehouse.shop.example.com/wh1", "widget.shop.example.com/w1"}
		if !slices.Equal(got, want) {
			t.Errorf("get shop -o name: %v, want %v", got, want)
		}
		got = strings.Fields(k.OK(t, "get", "bk", "-o", "name"))
		if want := []string{"book.library.example.com/lib-book"}; !slices.Equal(got, want) {
			t.Errorf("get bk -o name: %v, want %v", got, want)
		}
	})

	var oldRV string
	t.Run("replace -f", func(t *testing.T) {
		before := harness.DecodeJSON(t, k.OK(t, "get", "widget", "w1", "-o", "json"))
		oldRV, _ = harness.Path(before, "metadata", "resourceVersion").(string)
		changed := strings.Replace(harness.WidgetYAML("default", "w1"), "color: red", "color: blue", 1)
		f := k.Manifest(t, "w1-blue.yaml", changed)
		if got := strings.TrimSpace(k.OK(t, "replace", "-f", f)); got != "widget.shop.example.com/w1 replaced" {
			t.Errorf("replace -f: %q", got)
		}
		after := harness.DecodeJSON(t, k.OK(t, "get", "widget", "w1", "-o", "json"))
		if got := harness.Path(after, "spec", "color"); got != "blue" {
			t.Errorf("after replace spec.color = %v, want blue", got)
		}
		if rv := harness.Path(after, "metadata", "resourceVersion"); rv == oldRV {
			t.Errorf("resourceVersion %v did not change on replace", rv)
		}
		if uid, old := harness.Path(after, "metadata", "uid"), harness.Path(before, "metadata", "uid"); uid != old {
			t.Errorf("uid changed on replace: %v -> %v", old, uid)
		}
		if g := harness.Path(after, "metadata", "generation"); g != float64(2) {
			t.Errorf("metadata.generation after a spec change = %v, want 2", g)
		}
	})

	t.Run("replace with a stale resourceVersion", func(t *testing.T) {
		stale := strings.Replace(harness.WidgetYAML("default", "w1"), "  name: w1\n",
			fmt.Sprintf("  name: w1\n  resourceVersion: %q\n", oldRV), 1)
		f := k.Manifest(t, "w1-stale.yaml", stale)
		want := fmt.Sprintf(`Error from server (Conflict): error when replacing %q: Operation cannot be fulfilled on widgets.shop.example.com "w1": the object has been modified; please apply your changes to the latest version and try again`, f)
		if got := strings.TrimSpace(k.Fail(t, "replace", "-f", f)); got != want {
			t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
		}
		if got := harness.Path(harness.DecodeJSON(t, k.OK(t, "get", "widget", "w1", "-o", "json")), "spec", "color"); got != "blue" {
			t.Errorf("a refused replace changed spec.color to %v", got)
		}
	})

	t.Run("create a taken name", func(t *testing.T) {
		want := fmt.Sprintf(`Error from server (AlreadyExists): error when creating %q: widgets.shop.example.com "w1" already exists`, files["w1"])
		if got := strings.TrimSpace(k.Fail(t, "create", "-f", files["w1"])); got != want {
			t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
		}
		want = fmt.Sprintf(`Error from server (AlreadyExists): error when creating %q: warehouses.shop.example.com "wh1" already exists`, files["wh1"])
		if got := strings.TrimSpace(k.Fail(t, "create", "-f", files["wh1"])); got != want {
			t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
		}
	})

	t.Run("get a missing object", func(t *testing.T) {
		want := `Error from server (NotFound): widgets.shop.example.com "nope" not found`
		if got := strings.TrimSpace(k.Fail(t, "get", "widget", "nope")); got != want {
			t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
		}
		want = `Error from server (NotFound): warehouses.shop.example.com "nope" not found`
		if got := strings.TrimSpace(k.Fail(t, "get", "warehouse", "nope")); got != want {
			t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
		}
	})

	t.Run("create an invalid object", func(t *testing.T) {
		f := k.Manifest(t, "bad.yaml", harness.InvalidWidgetYAML("default", "bad"))
		want := `The Widget "bad" is invalid: ` + harness.InvalidWidget.Cause
		if got := strings.TrimSpace(k.Fail(t, "create", "-f", f)); got != want {
			t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
		}
		manifest, causes := harness.ManyErrorsWidgetYAML("default", "worse")
		f = k.Manifest(t, "worse.yaml", manifest)
		want = "The Widget \"worse\" is invalid: \n* " + strings.Join(causes, "\n* ")
		if got := strings.TrimSpace(k.Fail(t, "create", "-f", f)); got != want {
			t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
		}
		for _, name := range []string{"bad", "worse"} {
			k.Fail(t, "get", "widget", name)
		}
	})

	t.Run("delete", func(t *testing.T) {
		if got := strings.TrimSpace(k.OK(t, "delete", "widget", "w1")); got != `widget.shop.example.com "w1" deleted from default namespace` {
			t.Errorf("delete widget w1: %q", got)
		}
		if got := strings.TrimSpace(k.OK(t, "delete", "-f", files["wh1"])); got != `warehouse.shop.example.com "wh1" deleted` {
			t.Errorf("delete -f wh1.yaml: %q", got)
		}
		want := `Error from server (NotFound): widgets.shop.example.com "w1" not found`
		if got := strings.TrimSpace(k.Fail(t, "get", "widget", "w1")); got != want {
			t.Errorf("get after delete:\n%s\nwant:\n%s", got, want)
		}
		want = `Error from server (NotFound): widgets.shop.example.com "w1" not found`
		if got := strings.TrimSpace(k.Fail(t, "delete", "widget", "w1")); got != want {
			t.Errorf("delete twice:\n%s\nwant:\n%s", got, want)
		}
		got := strings.Fields(k.OK(t, "get", "widgets", "-A", "-o", "name"))
		if !slices.Equal(got, []string{"widget.shop.example.com/w2"}) {
			t.Errorf("after delete, get widgets -A: %v", got)
		}
	})
}

// TestKubectlRestart stops specd and starts it again on the same data
// directory, once cleanly (SIGINT) and once by SIGKILL: what was stored is
// still there, and writes go on.
func TestKubectlRestart(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, s)
	k.OK(t, "create", "-f", k.Manifest(t, "w.yaml", harness.WidgetYAML("default", "survivor")))
	k.OK(t, "create", "-f", k.Manifest(t, "wh.yaml", harness.WarehouseYAML("wh-survivor")))
	before := harness.DecodeJSON(t, k.OK(t, "get", "widget", "survivor", "-o", "json"))

	s.StopWith(t, syscall.SIGINT)
	s = harness.StartSpecd(t, s.Options())
	k = harness.NewKubectl(t, s)
	after := harness.DecodeJSON(t, k.OK(t, "get", "widget", "survivor", "-o", "json"))
	for _, field := range []string{"uid", "resourceVersion", "creationTimestamp"} {
		if b, a := harness.Path(before, "metadata", field), harness.Path(after, "metadata", field); a != b {
			t.Errorf("metadata.%s was %v before the restart, %v after", field, b, a)
		}
	}
	if got := strings.TrimSpace(k.OK(t, "get", "warehouses", "-o", "name")); got != "warehouse.shop.example.com/wh-survivor" {
		t.Errorf("get warehouses after restart: %q", got)
	}
	// Writes still work after the restart.
	k.OK(t, "create", "-f", k.Manifest(t, "w2.yaml", harness.WidgetYAML("default", "newcomer")))
	got := strings.Fields(k.OK(t, "get", "widgets", "-o", "name"))
	want := []string{"widget.shop.example.com/newcomer", "widget.shop.example.com/survivor"}
	if !slices.Equal(got, want) {
		t.Errorf("get widgets after restart: %v, want %v", got, want)
	}

	// A crash loses nothing that was acknowledged.
	s.Kill()
	s = harness.StartSpecd(t, s.Options())
	k = harness.NewKubectl(t, s)
	if got := strings.Fields(k.OK(t, "get", "widgets", "-o", "name")); !slices.Equal(got, want) {
		t.Errorf("get widgets after SIGKILL and restart: %v, want %v", got, want)
	}
	newcomer := harness.DecodeJSON(t, k.OK(t, "get", "widget", "newcomer", "-o", "json"))
	if rv, old := harness.Path(newcomer, "metadata", "resourceVersion"), harness.Path(after, "metadata", "resourceVersion"); rv == old {
		t.Errorf("newcomer has the resourceVersion %v of an older object", rv)
	}
}

// checkStoredWidget checks what the server says about a widget made from
// WidgetYAML: the fields sent, and the metadata the server fills in.
func checkStoredWidget(t *testing.T, obj map[string]any, namespace, name string) {
	t.Helper()
	for field, want := range map[string]any{
		"apiVersion": harness.Widgets.APIVersion(),
		"kind":       harness.Widgets.Kind,
	} {
		if obj[field] != want {
			t.Errorf("%s = %v, want %v", field, obj[field], want)
		}
	}
	if got := harness.Path(obj, "metadata", "name"); got != name {
		t.Errorf("metadata.name = %v, want %s", got, name)
	}
	if got := harness.Path(obj, "metadata", "namespace"); got != namespace {
		t.Errorf("metadata.namespace = %v, want %s", got, namespace)
	}
	if got := harness.Path(obj, "metadata", "labels", "app"); got != "e2e" {
		t.Errorf("metadata.labels.app = %v, want e2e", got)
	}
	for _, field := range []string{"uid", "resourceVersion", "creationTimestamp"} {
		if v, _ := harness.Path(obj, "metadata", field).(string); v == "" {
			t.Errorf("metadata.%s is empty", field)
		}
	}
	if got := harness.Path(obj, "spec", "color"); got != "red" {
		t.Errorf("spec.color = %v, want red", got)
	}
}
