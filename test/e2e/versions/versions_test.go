package versions

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/schemas/builtin"
	"github.com/specd-io/specd/test/e2e/harness"
)

// The example schemas serve Widget in shop.example.com v1 (its storage
// version) and v2beta1, and Book in library.example.com v1 (storage) and
// v1beta1 (deprecated).
var (
	widgetsV2beta1 = schema.GroupVersionResource{Group: "shop.example.com", Version: "v2beta1", Resource: "widgets"}
	booksV1beta1   = schema.GroupVersionResource{Group: "library.example.com", Version: "v1beta1", Resource: "books"}
)

// bookDeprecation is the Warning of library.example.com/v1beta1: kube's
// default message for a deprecated version.
const bookDeprecation = "library.example.com/v1beta1 Book is deprecated; use library.example.com/v1 Book"

// TestVersions writes objects in one version of a kind and reads them in
// another, with kubectl and client-go, and checks discovery and the
// deprecation warning. Until conversion rules exist, the versions share
// one shape and only apiVersion differs.
func TestVersions(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, s)
	dyn := harness.DynamicClient(t, s)

	t.Run("discovery", func(t *testing.T) {
		got := schemaVersions(k.OK(t, "api-versions"))
		want := []string{"fleet.example.com/v1", "library.example.com/v1", "library.example.com/v1beta1", "shop.example.com/v1", "shop.example.com/v2beta1"}
		if !slices.Equal(got, want) {
			t.Errorf("api-versions %v, want %v", got, want)
		}
		// The preferred version, the one kubectl uses without a version,
		// is the stable one.
		if out := k.OK(t, "api-resources", "--api-group", "shop.example.com", "-o", "name"); !strings.Contains(out, "widgets.shop.example.com") {
			t.Errorf("api-resources: %s", out)
		}
		for _, group := range []string{"shop.example.com", "library.example.com"} {
			body := testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + "/apis/" + group}).Body
			if !strings.Contains(body, `"preferredVersion":{"groupVersion":"`+group+`/v1","version":"v1"}`) {
				t.Errorf("/apis/%s: %s", group, body)
			}
		}
	})

	t.Run("create in v1, read in v2beta1", func(t *testing.T) {
		k.OK(t, "create", "-f", k.Manifest(t, "w1.yaml", harness.WidgetYAML("default", "w1")))
		v1 := getYAML(t, k, "widgets.v1.shop.example.com", "w1")
		v2 := getYAML(t, k, "widgets.v2beta1.shop.example.com", "w1")
		if v1["apiVersion"] != "shop.example.com/v1" || v2["apiVersion"] != "shop.example.com/v2beta1" {
			t.Errorf("apiVersions %v and %v", v1["apiVersion"], v2["apiVersion"])
		}
		sameButVersion(t, v1, v2)
		// Without a version kubectl reads the preferred one.
		if obj := getYAML(t, k, "widgets", "w1"); obj["apiVersion"] != "shop.example.com/v1" {
			t.Errorf("kubectl get widgets: apiVersion %v, want the preferred v1", obj["apiVersion"])
		}
	})

	t.Run("create in v2beta1, read and update in v1", func(t *testing.T) {
		ctx := harness.Context(t, time.Minute)
		obj := harness.WidgetObject("default", "w2")
		obj["apiVersion"] = "shop.example.com/v2beta1"
		created, err := dyn.Resource(widgetsV2beta1).Namespace("default").Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create in v2beta1: %v", err)
		}
		if created.GetAPIVersion() != "shop.example.com/v2beta1" {
			t.Errorf("create answered apiVersion %s", created.GetAPIVersion())
		}
		inV1, err := dyn.Resource(harness.Widgets.GVR()).Namespace("default").Get(ctx, "w2", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if inV1.GetAPIVersion() != "shop.example.com/v1" {
			t.Errorf("read in v1: apiVersion %s", inV1.GetAPIVersion())
		}
		sameButVersion(t, created.Object, inV1.Object)

		if err := unstructured.SetNestedField(inV1.Object, "blue", "spec", "color"); err != nil {
			t.Fatal(err)
		}
		if _, err := dyn.Resource(harness.Widgets.GVR()).Namespace("default").Update(ctx, inV1, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("update in v1: %v", err)
		}
		back, err := dyn.Resource(widgetsV2beta1).Namespace("default").Get(ctx, "w2", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if color, _, _ := unstructured.NestedString(back.Object, "spec", "color"); color != "blue" || back.GetAPIVersion() != "shop.example.com/v2beta1" {
			t.Errorf("read back in v2beta1: %s color %q", back.GetAPIVersion(), color)
		}
	})

	t.Run("list in v2beta1", func(t *testing.T) {
		out := k.OK(t, "get", "widgets.v2beta1.shop.example.com")
		tb := harness.ParseTable(t, out)
		if want := append([]string{"NAME"}, harness.WidgetPrinterColumns...); !slices.Equal(tb.Columns, want) {
			t.Errorf("columns %v, want %v", tb.Columns, want)
		}
		var names []string
		for _, row := range tb.Rows {
			names = append(names, row["NAME"])
		}
		if !slices.Equal(names, []string{"w1", "w2"}) {
			t.Errorf("kubectl get widgets.v2beta1.shop.example.com: %v\n%s", names, out)
		}
		list, err := dyn.Resource(widgetsV2beta1).Namespace("default").List(harness.Context(t, time.Minute), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if list.GetAPIVersion() != "shop.example.com/v2beta1" || len(list.Items) != 2 {
			t.Fatalf("list: apiVersion %s, %d items", list.GetAPIVersion(), len(list.Items))
		}
		for _, item := range list.Items {
			if item.GetAPIVersion() != "shop.example.com/v2beta1" {
				t.Errorf("item %s: apiVersion %s", item.GetName(), item.GetAPIVersion())
			}
		}
	})

	t.Run("watch in v1 while writing in v2beta1", func(t *testing.T) {
		ctx := harness.Context(t, time.Minute)
		w, err := dyn.Resource(harness.Widgets.GVR()).Namespace("default").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=w3"})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		obj := harness.WidgetObject("default", "w3")
		obj["apiVersion"] = "shop.example.com/v2beta1"
		if _, err := dyn.Resource(widgetsV2beta1).Namespace("default").Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		select {
		case ev := <-w.ResultChan():
			u, ok := ev.Object.(*unstructured.Unstructured)
			if ev.Type != "ADDED" || !ok || u.GetName() != "w3" || u.GetAPIVersion() != "shop.example.com/v1" {
				t.Errorf("event %s %#v", ev.Type, ev.Object)
			}
		case <-ctx.Done():
			t.Fatal("no event")
		}
	})

	t.Run("a deprecated version warns", func(t *testing.T) {
		k.OK(t, "create", "-f", k.Manifest(t, "b1.yaml", harness.BookYAML(harness.LibraryBooks, "default", "b1")))
		r := k.Run(t, "get", "books.v1beta1.library.example.com")
		if r.Code != 0 || !strings.Contains(r.Stdout, "b1") {
			t.Fatalf("kubectl get books.v1beta1:\n%s", r)
		}
		if !strings.Contains(r.Stderr, "Warning: "+bookDeprecation) {
			t.Errorf("kubectl printed no deprecation warning:\n%s", r)
		}
		if r := k.Run(t, "get", "books.v1.library.example.com"); strings.Contains(r.Stderr, "Warning") {
			t.Errorf("v1 is not deprecated, yet:\n%s", r)
		}
		// Every answer of the deprecated version carries it, an error too.
		resp := testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + "/apis/library.example.com/v1beta1/namespaces/default/books/nope"})
		if resp.Code != http.StatusNotFound {
			t.Errorf("code %d", resp.Code)
		}
		if got, want := resp.Header.Values("Warning"), []string{`299 - "` + bookDeprecation + `"`}; !slices.Equal(got, want) {
			t.Errorf("Warning %q, want %q", got, want)
		}
		// client-go hands the warning to its handler.
		var warned []string
		cfg := harness.RestConfig(s)
		cfg.WarningHandler = warningFunc(func(_ int, _ string, text string) { warned = append(warned, text) })
		if _, err := harness.DynamicClientFor(t, cfg).Resource(booksV1beta1).Namespace("default").Get(harness.Context(t, time.Minute), "b1", metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(warned, []string{bookDeprecation}) {
			t.Errorf("client-go warnings %q", warned)
		}
	})
}

// TestVersionsDisable switches a group version, a group and a built-in
// resource off with --disable: they leave discovery and routing, and
// their objects stay. The core events and the events.k8s.io ones are
// switched off each by its own name: either is served without the other.
func TestVersionsDisable(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, s)
	k.OK(t, "create", "-f", k.Manifest(t, "w1.yaml", harness.WidgetYAML("default", "w1")))
	k.OK(t, "create", "-f", k.Manifest(t, "b1.yaml", harness.BookYAML(harness.LibraryBooks, "default", "b1")))
	s.Stop(t)

	off := harness.StartSpecd(t, harness.SpecdOptions{DataDir: s.DataDir, Args: []string{"--disable", "shop.example.com/v2beta1,library.example.com,api/v1/events,events.k8s.io,coordination.k8s.io"}})
	k = harness.NewKubectl(t, off)
	if got, want := schemaVersions(k.OK(t, "api-versions")), []string{"fleet.example.com/v1", "shop.example.com/v1"}; !slices.Equal(got, want) {
		t.Errorf("api-versions %v, want %v", got, want)
	}
	if out := k.OK(t, "get", "widgets", "-o", "name"); strings.TrimSpace(out) != "widget.shop.example.com/w1" {
		t.Errorf("kubectl get widgets: %q", out)
	}
	for _, res := range []string{"widgets.v2beta1.shop.example.com", "events", "leases"} {
		if msg := k.Fail(t, "get", res); !strings.Contains(msg, "doesn't have a resource type") {
			t.Errorf("kubectl get %s: %s", res, msg)
		}
	}
	k.OK(t, "get", "configmaps") // the rest of the core group stays
	for _, p := range []string{"/apis/library.example.com", "/apis/library.example.com/v1", "/apis/library.example.com/v1/namespaces/default/books/b1",
		"/apis/shop.example.com/v2beta1", "/apis/shop.example.com/v2beta1/namespaces/default/widgets/w1", "/openapi/v3/apis/shop.example.com/v2beta1"} {
		if resp := testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: off.URL + p}); resp.Code != http.StatusNotFound {
			t.Errorf("GET %s: code %d, want 404", p, resp.Code)
		}
	}
	off.Stop(t)

	// Switched on again, the book is still there.
	on := harness.StartSpecd(t, harness.SpecdOptions{DataDir: s.DataDir})
	k = harness.NewKubectl(t, on)
	if out := k.OK(t, "get", "books.library.example.com", "-o", "name"); strings.TrimSpace(out) != "book.library.example.com/b1" {
		t.Errorf("kubectl get books.library.example.com: %q", out)
	}
}

// TestVersionsDisableUnknown: a --disable name the schemas do not declare
// stops specd before it serves, naming it.
func TestVersionsDisableUnknown(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, harness.Binaries.Specd, "serve", "--schemas", harness.ExampleSchemas, "--data-dir", t.TempDir(),
		"--listen", "127.0.0.1:0", "--disable", "shop.example.com/v3", "--disable", "nope.example.com")
	out, err := cmd.CombinedOutput()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 1 {
		t.Fatalf("specd serve: %v, want exit 1\n%s", err, out)
	}
	for _, want := range []string{
		`specd serve: --disable: schemas: not declared: group version "shop.example.com/v3" (shop.example.com has v1, v2beta1)`,
		`schemas: not declared: group "nope.example.com"`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// getYAML is kubectl get resource name -o yaml, decoded.
func getYAML(t *testing.T, k *harness.Kubectl, resource, name string) map[string]any {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(k.OK(t, "get", resource, name, "-o", "yaml")), &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

// sameButVersion checks that two versions of an object differ in
// apiVersion only.
func sameButVersion(t *testing.T, a, b map[string]any) {
	t.Helper()
	a, b = maps.Clone(a), maps.Clone(b)
	delete(a, "apiVersion")
	delete(b, "apiVersion")
	ja, _ := yaml.Marshal(a)
	jb, _ := yaml.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("the versions differ beyond apiVersion:\n%s\n---\n%s", ja, jb)
	}
}

// warningFunc is a client-go rest.WarningHandler.
type warningFunc func(code int, agent, text string)

func (f warningFunc) HandleWarningHeader(code int, agent, text string) { f(code, agent, text) }

// gizmoFile is the schema file of Gizmo in version v, a kind of its own
// (gizmos.example.com), with the given x-specd-resource (flow YAML).
func gizmoFile(v, ext string) string {
	return testschemas.Gadgets(testschemas.GadgetOptions{Kind: "Gizmo", Version: v, Resource: ext})
}

// TestVersionsNotServed: a version with served: false is hidden, the
// storage version included, and the kind is still read and written in
// the versions that are served.
func TestVersionsNotServed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	harness.WriteFile(t, dir, "v1.yaml", gizmoFile("v1", "{storage: true, served: false}"))
	harness.WriteFile(t, dir, "v2.yaml", gizmoFile("v2", "{served: false}"))
	harness.WriteFile(t, dir, "v1beta1.yaml", gizmoFile("v1beta1", `{deprecated: true, deprecationWarning: "gizmos are going away"}`))
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: dir})
	k := harness.NewKubectl(t, s)
	if got, want := schemaVersions(k.OK(t, "api-versions")), []string{"gizmos.example.com/v1beta1"}; !slices.Equal(got, want) {
		t.Errorf("api-versions %v, want %v", got, want)
	}
	r := k.Run(t, "create", "-f", k.Manifest(t, "g1.yaml", "apiVersion: gizmos.example.com/v1beta1\nkind: Gizmo\nmetadata:\n  name: g1\nspec:\n  size: 2\n"))
	if r.Code != 0 || !strings.Contains(r.Stderr, "Warning: gizmos are going away") {
		t.Errorf("create in v1beta1:\n%s", r)
	}
	if out := k.OK(t, "get", "gizmos", "g1", "-o", "jsonpath={.apiVersion} {.spec.size}"); out != "gizmos.example.com/v1beta1 2" {
		t.Errorf("kubectl get gizmos g1: %q", out)
	}
	for _, p := range []string{"/apis/gizmos.example.com/v1", "/apis/gizmos.example.com/v2/namespaces/default/gizmos/g1", "/apis/gizmos.example.com/v1/namespaces/default/gizmos"} {
		if resp := testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + p}); resp.Code != http.StatusNotFound {
			t.Errorf("GET %s: code %d, want 404", p, resp.Code)
		}
	}
}

// schemaVersions are the group versions of an api-versions listing that
// come from schema files: without those built into specd (RBAC, the
// review APIs, status.specd.io), which are always served.
func schemaVersions(listing string) []string {
	return slices.DeleteFunc(strings.Fields(listing), func(gv string) bool {
		group, _, core := strings.Cut(gv, "/")
		return !core || slices.Contains(builtin.ReservedGroups(), group)
	})
}
