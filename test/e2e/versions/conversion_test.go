package versions

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/test/e2e/harness"
)

// frobbers is the Frobber of examples/conversion: v1 declares rules that
// map it to the storage version v2 (renamed fields, a scalar that becomes
// a list, an enum, a split string, a constant).
const frobbers = "/apis/frob.example.com/%s/namespaces/default/frobbers"

// TestConversionRules writes and reads one object through both versions of
// a resource whose versions differ in shape, with the real server: what a
// client of each version gets back is what it wrote, and what the other
// version sees is the rules' mapping.
func TestConversionRules(t *testing.T) {
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: filepath.Join(harness.RepoRoot, "examples", "conversion")})
	client := &http.Client{Timeout: 10 * time.Second}
	url := func(version, name string) string {
		u := s.URL + fmt.Sprintf(frobbers, version)
		if name != "" {
			u += "/" + name
		}
		return u
	}

	v1 := `{"apiVersion":"frob.example.com/v1","kind":"Frobber","metadata":{"name":"f"},
		"spec":{"height":10,"width":20,"param":"p1","mode":"fast","command":"run --fast now"}}`
	created := testhttp.Do(t, client, testhttp.Request{Method: http.MethodPost, URL: url("v1", ""), ContentType: "application/json", Body: v1})
	if created.Code != http.StatusCreated {
		t.Fatalf("create in v1: %d %s", created.Code, created.Body)
	}
	expect(t, "create answer in v1", created.Body, map[string]string{"apiVersion": "frob.example.com/v1",
		"spec.height": "10", "spec.width": "20", "spec.param": "p1", "spec.mode": "fast", "spec.command": "run --fast now"})
	if gjson.Get(created.Body, "metadata.annotations").Exists() {
		t.Errorf("the v1 answer shows conversion bookkeeping: %s", created.Body)
	}

	inV2 := testhttp.Do(t, client, testhttp.Request{URL: url("v2", "f")})
	expect(t, "read in v2", inV2.Body, map[string]string{"apiVersion": "frob.example.com/v2",
		"spec.heightInInches": "10", "spec.widthInInches": "20", "spec.params": `["p1"]`,
		"spec.mode": "Fast", "spec.args": `["run","--fast","now"]`, "spec.unit": "inches"})

	// An update in v2 that v1 cannot hold in full: a second param.
	updated := setJSON(t, inV2.Body, "spec.params", []string{"p1", "p2"})
	updated = setJSON(t, updated, "spec.heightInInches", 11)
	if put := testhttp.Do(t, client, testhttp.Request{Method: http.MethodPut, URL: url("v2", "f"), ContentType: "application/json", Body: updated}); put.Code != http.StatusOK {
		t.Fatalf("update in v2: %d %s", put.Code, put.Body)
	}
	back := testhttp.Do(t, client, testhttp.Request{URL: url("v1", "f")})
	expect(t, "read in v1 after the v2 update", back.Body, map[string]string{"spec.height": "11", "spec.param": "p1"})
	again := testhttp.Do(t, client, testhttp.Request{URL: url("v2", "f")})
	expect(t, "read in v2 again", again.Body, map[string]string{"spec.params": `["p1","p2"]`, "spec.heightInInches": "11"})

	// A v1 client that replaces the object with what it read keeps what only
	// v2 can hold.
	if replace := testhttp.Do(t, client, testhttp.Request{Method: http.MethodPut, URL: url("v1", "f"), ContentType: "application/json", Body: back.Body}); replace.Code != http.StatusOK {
		t.Fatalf("replace in v1: %d %s", replace.Code, replace.Body)
	}
	final := testhttp.Do(t, client, testhttp.Request{URL: url("v2", "f")})
	expect(t, "read in v2 after a v1 replace", final.Body, map[string]string{"spec.params": `["p1","p2"]`})

	// What v1 cannot hold rides in specd's bookkeeping annotation, which no
	// client sees, in either version.
	for what, body := range map[string]string{"create answer in v1": created.Body, "read in v2": inV2.Body,
		"read in v1": back.Body, "read in v2 again": again.Body, "read after the v1 replace": final.Body} {
		noBookkeeping(t, what, body)
	}
	withColor := setJSON(t, final.Body, "spec.color", "red")
	if put := testhttp.Do(t, client, testhttp.Request{Method: http.MethodPut, URL: url("v2", "f"), ContentType: "application/json", Body: withColor}); put.Code != http.StatusOK {
		t.Fatalf("update in v2: %d %s", put.Code, put.Body)
	}
	bookkeepingThroughClients(t, s, url)
}

// bookkeepingThroughClients reads and writes frobber f in v1 with kubectl
// and client-go, each write made from what v1 shows: none shows the
// bookkeeping, and the params and color only v2 holds survive them all.
func bookkeepingThroughClients(t *testing.T, s *harness.Specd, url func(version, name string) string) {
	client := &http.Client{Timeout: 10 * time.Second}
	for _, version := range []string{"v1", "v2"} {
		noBookkeeping(t, "list in "+version, testhttp.Do(t, client, testhttp.Request{URL: url(version, "")}).Body)
		table := testhttp.Do(t, client, testhttp.Request{URL: url(version, "") + "?includeObject=Object", Accept: "application/json;as=Table;v=v1;g=meta.k8s.io"})
		if table.Code != http.StatusOK {
			t.Fatalf("GET the table in %s: %d\n%s", version, table.Code, table.Body)
		}
		noBookkeeping(t, "table in "+version, table.Body)
	}

	k := harness.NewKubectl(t, s)
	resource := "frobbers.v1.frob.example.com"
	noBookkeeping(t, "kubectl get -o yaml", k.OK(t, "get", resource, "f", "-o", "yaml"))
	noBookkeeping(t, "kubectl patch", k.OK(t, "patch", resource, "f", "--type", "merge", "-p", `{"spec":{"height":12}}`, "-o", "json"))
	noBookkeeping(t, "kubectl apply --server-side", k.OK(t, "apply", "--server-side", "--force-conflicts", "-o", "json", "-f",
		k.Manifest(t, "f.yaml", "apiVersion: frob.example.com/v1\nkind: Frobber\nmetadata:\n  name: f\nspec:\n  height: 13\n")))
	read := k.OK(t, "get", resource, "f", "-o", "json")
	noBookkeeping(t, "kubectl replace", k.OK(t, "replace", "-o", "json", "-f",
		k.Manifest(t, "f.json", setJSON(t, read, "spec.height", 14))))

	var warnings []string
	cfg := harness.RestConfig(s)
	cfg.WarningHandler = warningFunc(func(_ int, _ string, text string) { warnings = append(warnings, text) })
	frobs := harness.DynamicClientFor(t, cfg).Resource(schema.GroupVersionResource{Group: "frob.example.com", Version: "v1", Resource: "frobbers"}).Namespace("default")
	ctx := harness.Context(t, time.Minute)
	obj, err := frobs.Get(ctx, "f", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	watch, err := frobs.Watch(ctx, metav1.ListOptions{ResourceVersion: obj.GetResourceVersion(), FieldSelector: "metadata.name=f"})
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Stop()
	if err := unstructured.SetNestedField(obj.Object, int64(15), "spec", "height"); err != nil {
		t.Fatal(err)
	}
	// A client that writes the annotation itself is ignored, with a warning.
	obj.SetAnnotations(map[string]string{"specd.io/conversion-data": `{"v2":{"fields":[{"p":["spec","color"],"v":"forged"}]}}`})
	updated, err := frobs.Update(ctx, obj, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("client-go update in v1: %v", err)
	}
	if len(updated.GetAnnotations()) != 0 || !slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, "specd.io/conversion-data") }) {
		t.Errorf("a client's bookkeeping: annotations %v, warnings %q; want none and a warning", updated.GetAnnotations(), warnings)
	}
	select {
	case ev := <-watch.ResultChan():
		b, _ := json.Marshal(ev.Object)
		noBookkeeping(t, "watch event in v1", string(b))
	case <-ctx.Done():
		t.Fatal("no watch event")
	}

	wide := testhttp.Do(t, client, testhttp.Request{URL: url("v2", "f")})
	expect(t, "read in v2 after the v1 clients", wide.Body, map[string]string{
		"spec.params": `["p1","p2"]`, "spec.color": "red", "spec.heightInInches": "15"})
	noBookkeeping(t, "read in v2 after the v1 clients", wide.Body)
}

// noBookkeeping fails if a client-facing answer shows the conversion
// bookkeeping annotation.
func noBookkeeping(t *testing.T, what, body string) {
	t.Helper()
	if strings.Contains(body, "specd.io/conversion-data") {
		t.Errorf("%s shows specd's bookkeeping:\n%s", what, body)
	}
}

// expect checks gjson paths of body against their raw JSON (strings
// unquoted).
func expect(t *testing.T, what, body string, want map[string]string) {
	t.Helper()
	for path, v := range want {
		got := gjson.Get(body, path)
		raw := got.Raw
		if got.Type == gjson.String {
			raw = got.String()
		}
		if raw != v {
			t.Errorf("%s: %s = %s, want %s\n%s", what, path, raw, v, body)
		}
	}
}

func setJSON(t *testing.T, doc, path string, v any) string {
	t.Helper()
	out, err := sjson.Set(doc, path, v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
