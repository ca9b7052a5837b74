package api

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	openapiv2 "github.com/google/gnostic-models/openapiv2"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/test/e2e/harness"
)

// TestOpenAPI checks what specd serve publishes at /openapi: every
// document is valid (kin-openapi; Swagger 2.0 also under gnostic, which
// kubectl reads it with), kubectl explain shows the schema files' fields
// and descriptions, and a schema change is published.
func TestOpenAPI(t *testing.T) {
	t.Parallel()
	t.Run("every document is valid", func(t *testing.T) {
		t.Parallel()
		for _, dir := range []string{harness.ExampleSchemas, filepath.Join(harness.RepoRoot, "examples", "conversion")} {
			s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: dir})
			n := checkOpenAPIDocuments(t, s)
			if n == 0 {
				t.Errorf("%s: no document", dir)
			}
		}
	})
	t.Run("kubectl explain", func(t *testing.T) {
		t.Parallel()
		testExplain(t, harness.NewKubectl(t, harness.StartSpecd(t, harness.SpecdOptions{})))
	})
	t.Run("a schema change is published", func(t *testing.T) {
		t.Parallel()
		testOpenAPIReload(t)
	})
}

// checkOpenAPIDocuments validates every document s publishes and returns
// how many group version documents there are.
func checkOpenAPIDocuments(t *testing.T, s *harness.Specd) int {
	t.Helper()
	index := testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + "/openapi/v3"})
	if index.Code != http.StatusOK {
		t.Fatalf("/openapi/v3: HTTP %d\n%s", index.Code, index.Body)
	}
	var idx struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal([]byte(index.Body), &idx); err != nil {
		t.Fatal(err)
	}
	for key, p := range idx.Paths {
		r := testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + p.ServerRelativeURL})
		if r.Code != http.StatusOK || r.Header.Get("Cache-Control") != "public, immutable" || r.Header.Get("Etag") == "" {
			t.Fatalf("%s: HTTP %d, Cache-Control %q, Etag %q", p.ServerRelativeURL, r.Code, r.Header.Get("Cache-Control"), r.Header.Get("Etag"))
		}
		doc, err := openapi3.NewLoader().LoadFromData([]byte(r.Body))
		if err != nil {
			t.Fatalf("%s: kin-openapi cannot load it: %v", key, err)
		}
		if err := doc.Validate(context.Background()); err != nil {
			t.Errorf("%s: invalid: %v", key, err)
		}
		if strings.Contains(r.Body, `"x-specd`) {
			t.Errorf("%s: publishes specd's own extensions", key)
		}
	}
	v2 := testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + "/openapi/v2"})
	if v2.Code != http.StatusOK {
		t.Fatalf("/openapi/v2: HTTP %d", v2.Code)
	}
	if _, err := openapiv2.ParseDocument([]byte(v2.Body)); err != nil {
		t.Errorf("/openapi/v2: invalid Swagger 2.0: %v", err)
	}
	var doc2 openapi2.T
	if err := json.Unmarshal([]byte(v2.Body), &doc2); err != nil {
		t.Fatal(err)
	}
	doc3, err := openapi2conv.ToV3(&doc2)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc3.Validate(context.Background()); err != nil {
		t.Errorf("/openapi/v2 (as v3): invalid: %v", err)
	}
	return len(idx.Paths)
}

// testExplain runs kubectl explain on the example schemas: the fields and
// descriptions are those of examples/schemas/shop.example.com/v1.yaml.
func testExplain(t *testing.T, k *harness.Kubectl) {
	tests := map[string]struct {
		args []string
		want []string // lines, in this order
	}{
		"a field, recursively": {[]string{"explain", "widget.spec", "--recursive"}, []string{
			"KIND:       Widget", "VERSION:    v1", "FIELD: spec <WidgetSpec>",
			"The desired state of a Widget.",
			"color	<string> -required-", "enum: red, green, blue", "notes	<string>", "price	<number>",
			"size	<integer>", "stock	<Object>", "tags	<[]string>", "warehouse	<string>"}},
		"one field": {[]string{"explain", "widget.spec.color"}, []string{
			"FIELD: color <string>", "ENUM:", "red", "green", "blue", "DESCRIPTION:", "The color the widget is painted."}},
		"the kind": {[]string{"explain", "widgets"}, []string{
			"DESCRIPTION:", "A Widget is a product the shop builds and sells.",
			"metadata	<ObjectMeta>", "Standard object's metadata.",
			"spec	<WidgetSpec> -required-", "The desired state of a Widget.",
			"status	<WidgetStatus>", "The observed state of a Widget."}},
		"a field of a referred schema": {[]string{"explain", "warehouse.spec.address.country"}, []string{
			"KIND:       Warehouse", "FIELD: country <string>", "ISO 3166-1 alpha-2 country code."}},
		"object meta": {[]string{"explain", "widget.metadata.labels"}, []string{"FIELD: labels <map[string]string>"}},
		"another version": {[]string{"explain", "book", "--api-version=library.example.com/v1beta1"}, []string{
			"GROUP:      library.example.com", "VERSION:    v1beta1"}},
		"from Swagger 2.0": {[]string{"explain", "widget.spec.size", "--output=plaintext-openapiv2"}, []string{
			"KIND:     Widget", "FIELD:    size <integer>", "The size in centimeters."}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out := k.OK(t, tc.args...)
			checkLinesInOrder(t, out, tc.want)
		})
	}
}

// checkLinesInOrder checks that each wanted line starts a line of out
// (spaces around it aside), in order.
func checkLinesInOrder(t *testing.T, out string, want []string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	i := 0
	for _, w := range want {
		for i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), w) {
			i++
		}
		if i == len(lines) {
			t.Fatalf("no line %q (in order) in:\n%s", w, out)
		}
		i++
	}
}

// testOpenAPIReload changes a schema file under a running specd and checks
// that the documents and kubectl explain follow.
func testOpenAPIReload(t *testing.T) {
	dir := t.TempDir()
	file := harness.WriteFile(t, dir, "gadgets.yaml", testschemas.Gadgets(testschemas.GadgetOptions{}))
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: dir})
	k := harness.NewKubectl(t, s)
	checkLinesInOrder(t, k.OK(t, "explain", "gadget.spec"), []string{"FIELDS:", "size	<integer>"})
	before := testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + "/openapi/v3"}).Body

	harness.WriteFile(t, dir, filepath.Base(file), testschemas.Gadgets(testschemas.GadgetOptions{Props: []string{testschemas.SizeProp,
		`color: {type: string, description: "The gadget's color, new in this file."}`}}))
	deadline := time.Now().Add(harness.GCTimeout)
	for testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + "/openapi/v3"}).Body == before {
		if time.Now().After(deadline) {
			t.Fatalf("/openapi/v3 did not change within %s", harness.GCTimeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
	checkLinesInOrder(t, k.OK(t, "explain", "gadget.spec.color"), []string{
		"FIELD: color <string>", "DESCRIPTION:", "The gadget's color, new in this file."})
	if v2 := testhttp.Do(t, http.DefaultClient, testhttp.Request{URL: s.URL + "/openapi/v2"}).Body; !strings.Contains(v2, "new in this file") {
		t.Error("/openapi/v2 does not have the new field")
	}
}
