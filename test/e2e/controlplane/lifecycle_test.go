package controlplane

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/test/e2e/harness"
)

// TestLifecycle drives selectors, deletion, finalizers and owner
// references through kubectl against one specd.
func TestLifecycle(t *testing.T) {
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, s)

	t.Run("selectors", func(t *testing.T) { testSelectors(t, s, k) })
	t.Run("finalizers", func(t *testing.T) { testFinalizers(t, k) })
	t.Run("cascade", func(t *testing.T) { testCascade(t, k) })
}

// labelledWidget is a widget in namespace sel with a tier label.
func labelledWidget(name, tier, color string, size int) string {
	return fmt.Sprintf(`apiVersion: shop.example.com/v1
kind: Widget
metadata:
  name: %s
  namespace: sel
  labels:
    tier: %s
spec:
  color: %s
  size: %d
`, name, tier, color, size)
}

func names(out string) []string {
	f := strings.Fields(out)
	slices.Sort(f)
	return f
}

func testSelectors(t *testing.T, s *harness.Specd, k *harness.Kubectl) {
	var all strings.Builder
	for i, w := range []struct{ name, tier, color string }{
		{"w1", "gold", "red"}, {"w2", "gold", "blue"}, {"w3", "silver", "red"}, {"w4", "bronze", "green"}, {"w5", "gold", "red"},
	} {
		all.WriteString("---\n" + labelledWidget(w.name, w.tier, w.color, i+1))
	}
	k.OK(t, "create", "namespace", "sel")
	k.OK(t, "create", "-f", k.Manifest(t, "sel.yaml", all.String()))

	tests := map[string]struct {
		args []string
		want []string
	}{
		"equality":        {[]string{"-l", "tier=gold"}, []string{"w1", "w2", "w5"}},
		"inequality":      {[]string{"-l", "tier!=gold"}, []string{"w3", "w4"}},
		"set":             {[]string{"-l", "tier in (silver,bronze)"}, []string{"w3", "w4"}},
		"notin":           {[]string{"-l", "tier notin (gold)"}, []string{"w3", "w4"}},
		"exists":          {[]string{"-l", "tier"}, []string{"w1", "w2", "w3", "w4", "w5"}},
		"does not exist":  {[]string{"-l", "!tier"}, nil},
		"selectable":      {[]string{"--field-selector", "spec.color=red"}, []string{"w1", "w3", "w5"}},
		"name":            {[]string{"--field-selector", "metadata.name=w2"}, []string{"w2"}},
		"both":            {[]string{"-l", "tier=gold", "--field-selector", "spec.color!=blue"}, []string{"w1", "w5"}},
		"pages of one":    {[]string{"-l", "tier=gold", "--chunk-size=1"}, []string{"w1", "w2", "w5"}},
		"all namespaces":  {[]string{"-A", "-l", "tier=silver", "--field-selector", "metadata.namespace=sel"}, []string{"w3"}},
		"matches nothing": {[]string{"-l", "tier=platinum"}, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"get", "widgets", "-n", "sel", "-o", "custom-columns=:metadata.name", "--no-headers"}, tc.args...)
			if got := names(k.OK(t, args...)); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}

	t.Run("unsupported field", func(t *testing.T) {
		stderr := k.Fail(t, "get", "widgets", "-n", "sel", "--field-selector", "spec.size=3")
		if !strings.Contains(stderr, "field label not supported: spec.size") {
			t.Fatalf("stderr %q", stderr)
		}
	})

	t.Run("deletecollection", func(t *testing.T) {
		client := &http.Client{Timeout: 10 * time.Second}
		base := s.URL + "/apis/shop.example.com/v1/namespaces/sel/widgets"
		dry := testhttp.Do(t, client, testhttp.Request{Method: http.MethodDelete, URL: base + "?labelSelector=tier%3Dgold&dryRun=All"})
		if dry.Code != http.StatusOK {
			t.Fatalf("dry run: %d %s", dry.Code, dry.Body)
		}
		var list struct {
			Kind  string `json:"kind"`
			Items []struct {
				Metadata struct{ Name string } `json:"metadata"`
			} `json:"items"`
		}
		if err := json.Unmarshal([]byte(dry.Body), &list); err != nil || list.Kind != "WidgetList" || len(list.Items) != 3 {
			t.Fatalf("dry run answered %s (%v)", dry.Body, err)
		}
		res := testhttp.Do(t, client, testhttp.Request{Method: http.MethodDelete, URL: base + "?fieldSelector=spec.color%3Dblue"})
		if res.Code != http.StatusOK || !strings.Contains(res.Body, `"w2"`) {
			t.Fatalf("deletecollection: %d %s", res.Code, res.Body)
		}
		if got := names(k.OK(t, "get", "widgets", "-n", "sel", "-o", "custom-columns=:metadata.name", "--no-headers")); !slices.Equal(got, []string{"w1", "w3", "w4", "w5"}) {
			t.Fatalf("after deletecollection: %v", got)
		}
		bad := testhttp.Do(t, client, testhttp.Request{Method: http.MethodDelete, URL: base + "?fieldSelector=spec.size%3D1"})
		harness.CheckStatus(t, bad, http.StatusBadRequest, "BadRequest")
	})

	t.Run("delete -l", func(t *testing.T) {
		out := k.OK(t, "delete", "widgets", "-n", "sel", "-l", "tier=gold", "--wait=false")
		for _, n := range []string{"w1", "w5"} {
			if !strings.Contains(out, fmt.Sprintf(`widget.shop.example.com "%s" deleted`, n)) {
				t.Fatalf("kubectl delete -l printed %q", out)
			}
		}
		if got := names(k.OK(t, "get", "widgets", "-n", "sel", "-o", "custom-columns=:metadata.name", "--no-headers")); !slices.Equal(got, []string{"w3", "w4"}) {
			t.Fatalf("after delete -l: %v", got)
		}
	})
}

// jsonpath runs kubectl get -o jsonpath.
func jsonpath(t *testing.T, k *harness.Kubectl, path string, args ...string) string {
	t.Helper()
	return k.OK(t, append(append([]string{"get"}, args...), "-o", "jsonpath="+path)...)
}

// gone reports whether kubectl get finds nothing.
func gone(t *testing.T, k *harness.Kubectl, args ...string) bool {
	t.Helper()
	r := k.Run(t, append([]string{"get"}, args...)...)
	if r.Code == 0 {
		return false
	}
	if !strings.Contains(r.Stderr, "NotFound") && !strings.Contains(r.Stderr, "not found") {
		t.Fatalf("unexpected failure:\n%s", r)
	}
	return true
}

// withoutFinalizers rewrites an object's JSON (from kubectl get -o json)
// with the finalizers given, for kubectl replace.
func withFinalizersJSON(t *testing.T, obj string, finalizers []string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(obj), &m); err != nil {
		t.Fatal(err)
	}
	md := m["metadata"].(map[string]any)
	if finalizers == nil {
		delete(md, "finalizers")
	} else {
		md["finalizers"] = finalizers
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func testFinalizers(t *testing.T, k *harness.Kubectl) {
	k.OK(t, "create", "-f", k.Manifest(t, "held.yaml", `apiVersion: shop.example.com/v1
kind: Widget
metadata:
  name: held
  finalizers: [e2e.example.com/hold]
spec:
  color: red
`))
	out := k.OK(t, "delete", "widget", "held", "--wait=false")
	if !strings.Contains(out, `"held" deleted`) {
		t.Fatalf("delete printed %q", out)
	}
	if ts := jsonpath(t, k, "{.metadata.deletionTimestamp}", "widget", "held"); ts == "" {
		t.Fatal("the held widget is not terminating")
	}
	if g := jsonpath(t, k, "{.metadata.deletionGracePeriodSeconds}", "widget", "held"); g != "0" {
		t.Fatalf("deletionGracePeriodSeconds %q, want 0", g)
	}
	obj := k.OK(t, "get", "widget", "held", "-o", "json")
	more := k.Manifest(t, "more.json", withFinalizersJSON(t, obj, []string{"e2e.example.com/hold", "e2e.example.com/more"}))
	stderr := k.Fail(t, "replace", "-f", more)
	if !strings.Contains(stderr, "no new finalizers can be added if the object is being deleted") {
		t.Fatalf("adding a finalizer while terminating: %q", stderr)
	}
	none := k.Manifest(t, "none.json", withFinalizersJSON(t, obj, nil))
	k.OK(t, "replace", "-f", none)
	if !gone(t, k, "widget", "held") {
		t.Fatal("the widget is still there after its last finalizer went")
	}
}

// owned is a manifest of kind in apiVersion owned by the given owners
// ("Kind/name/uid/block" each).
func owned(apiVersion, kind, name, namespace string, finalizers []string, owners ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: %s\nkind: %s\nmetadata:\n  name: %s\n", apiVersion, kind, name)
	if namespace != "" {
		fmt.Fprintf(&b, "  namespace: %s\n", namespace)
	}
	if len(finalizers) > 0 {
		fmt.Fprintf(&b, "  finalizers: [%s]\n", strings.Join(finalizers, ", "))
	}
	if len(owners) > 0 {
		b.WriteString("  ownerReferences:\n")
		for _, o := range owners {
			p := strings.Split(o, "/")
			fmt.Fprintf(&b, "  - {apiVersion: shop.example.com/v1, kind: %s, name: %s, uid: %s, blockOwnerDeletion: %s}\n", p[0], p[1], p[2], p[3])
		}
	}
	switch kind {
	case "Widget":
		b.WriteString("spec:\n  color: green\n")
	case "Book":
		b.WriteString("spec:\n  title: T\n  author:\n    name: A\n")
	case "Warehouse":
		b.WriteString("spec:\n  address:\n    city: Porto\n")
	}
	return b.String()
}

// family creates a warehouse and two dependents in two groups: a library
// Book and a shop Widget.
func family(t *testing.T, k *harness.Kubectl, name string, bookFinalizers []string, block string) (uid string) {
	t.Helper()
	k.OK(t, "create", "-f", k.Manifest(t, name+".yaml", owned("shop.example.com/v1", "Warehouse", name, "", nil)))
	uid = jsonpath(t, k, "{.metadata.uid}", "warehouse", name)
	owner := "Warehouse/" + name + "/" + uid + "/" + block
	k.OK(t, "create", "-f", k.Manifest(t, name+"-book.yaml", owned("library.example.com/v1", "Book", name+"-book", "default", bookFinalizers, owner)))
	k.OK(t, "create", "-f", k.Manifest(t, name+"-widget.yaml", owned("shop.example.com/v1", "Widget", name+"-widget", "default", nil, owner)))
	return uid
}

func testCascade(t *testing.T, k *harness.Kubectl) {
	t.Run("background", func(t *testing.T) {
		family(t, k, "north", nil, "false")
		k.OK(t, "delete", "warehouse", "north", "--cascade=background", "--wait=false")
		harness.Eventually(t, "dependents deleted", func() bool {
			return gone(t, k, "books.library.example.com", "north-book") && gone(t, k, "widget", "north-widget")
		})
	})
	t.Run("foreground", func(t *testing.T) {
		family(t, k, "south", []string{"e2e.example.com/hold"}, "true")
		k.OK(t, "delete", "warehouse", "south", "--cascade=foreground", "--wait=false")
		harness.Eventually(t, "the free dependent deleted", func() bool { return gone(t, k, "widget", "south-widget") })
		if f := jsonpath(t, k, "{.metadata.finalizers}", "warehouse", "south"); !strings.Contains(f, "foregroundDeletion") {
			t.Fatalf("the owner's finalizers are %q", f)
		}
		harness.Eventually(t, "the blocking dependent terminating", func() bool {
			return jsonpath(t, k, "{.metadata.deletionTimestamp}", "books.library.example.com", "south-book") != ""
		})
		time.Sleep(500 * time.Millisecond)
		if gone(t, k, "warehouse", "south") {
			t.Fatal("the owner went before its blocking dependent")
		}
		book := k.OK(t, "get", "books.library.example.com", "south-book", "-o", "json")
		k.OK(t, "replace", "-f", k.Manifest(t, "south-book.json", withFinalizersJSON(t, book, nil)))
		harness.Eventually(t, "the owner deleted last", func() bool { return gone(t, k, "warehouse", "south") })
	})
	t.Run("owner never existed", func(t *testing.T) {
		k.OK(t, "create", "-f", k.Manifest(t, "stray.yaml", owned("library.example.com/v1", "Book", "stray", "default", nil,
			"Warehouse/nowhere/00000000-0000-0000-0000-000000000000/false")))
		harness.Eventually(t, "the dependent of a missing owner deleted", func() bool { return gone(t, k, "books.library.example.com", "stray") })
	})
	t.Run("orphan", func(t *testing.T) {
		family(t, k, "east", nil, "true")
		k.OK(t, "delete", "warehouse", "east", "--cascade=orphan", "--wait=false")
		harness.Eventually(t, "the owner deleted", func() bool { return gone(t, k, "warehouse", "east") })
		for _, args := range [][]string{{"books.library.example.com", "east-book"}, {"widget", "east-widget"}} {
			if refs := jsonpath(t, k, "{.metadata.ownerReferences}", args...); refs != "" {
				t.Fatalf("%v keeps ownerReferences %s", args, refs)
			}
		}
	})
}

// TestLifecycleRestart stops specd in the middle of cascades; the next
// specd on the same data finishes them.
func TestLifecycleRestart(t *testing.T) {
	first := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, first)
	family(t, k, "west", []string{"e2e.example.com/hold"}, "true")
	k.OK(t, "delete", "warehouse", "west", "--cascade=foreground", "--wait=false")
	harness.Eventually(t, "the blocking dependent terminating", func() bool {
		return jsonpath(t, k, "{.metadata.deletionTimestamp}", "books.library.example.com", "west-book") != ""
	})
	family(t, k, "central", nil, "false")
	k.OK(t, "delete", "warehouse", "central", "--cascade=background", "--wait=false")
	first.Kill() // a crash, possibly before the collector acted

	second := harness.StartSpecd(t, first.Options())
	k = harness.NewKubectl(t, second)
	harness.Eventually(t, "the background cascade finished", func() bool {
		return gone(t, k, "books.library.example.com", "central-book") && gone(t, k, "widget", "central-widget")
	})
	if gone(t, k, "warehouse", "west") {
		t.Fatal("the foreground owner went before its blocking dependent")
	}
	book := k.OK(t, "get", "books.library.example.com", "west-book", "-o", "json")
	k.OK(t, "replace", "-f", k.Manifest(t, "west-book.json", withFinalizersJSON(t, book, nil)))
	harness.Eventually(t, "the foreground cascade finished", func() bool {
		return gone(t, k, "warehouse", "west") && gone(t, k, "widget", "west-widget")
	})
}

// scaleExample serves the Pool of examples/scale: a resource with a scale
// subresource.
var scaleExample = filepath.Join(harness.RepoRoot, "examples", "scale")

// TestScaleSubresource serves a schema with a scale subresource and
// scales through kubectl.
func TestScaleSubresource(t *testing.T) {
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: scaleExample})
	k := harness.NewKubectl(t, s)
	k.OK(t, "create", "-f", k.Manifest(t, "pool.yaml", `apiVersion: apps.example.com/v1
kind: Pool
metadata:
  name: p
spec:
  replicas: 2
  selector: app=p
`))
	k.OK(t, "scale", "pool", "p", "--current-replicas=2", "--replicas=5")
	if got := jsonpath(t, k, "{.spec.replicas}", "pool", "p"); got != "5" {
		t.Fatalf("replicas %q after kubectl scale, want 5", got)
	}
	// Without a precondition kubectl sends a merge patch to /scale.
	k.OK(t, "scale", "pool", "p", "--replicas=6")
	if got := jsonpath(t, k, "{.spec.replicas}", "pool", "p"); got != "6" {
		t.Fatalf("replicas %q after kubectl scale --replicas=6, want 6", got)
	}
	stderr := k.Fail(t, "scale", "pool", "p", "--current-replicas=2", "--replicas=3")
	if !strings.Contains(stderr, "Expected replicas to be 2, was 6") {
		t.Fatalf("scale with a wrong precondition: %q", stderr)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	res := testhttp.Do(t, client, testhttp.Request{URL: s.URL + "/apis/apps.example.com/v1/namespaces/default/pools/p/scale"})
	if res.Code != http.StatusOK || !strings.Contains(res.Body, `"selector":"app=p"`) || !strings.Contains(res.Body, `"kind":"Scale"`) {
		t.Fatalf("GET scale: %d %s", res.Code, res.Body)
	}
}
