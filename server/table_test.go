package server

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/specd-io/specd/schemas"
)

const acceptTable = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

// The column definitions kube-apiserver v1.36 answers for the widgets CRD
// (reference exchange 30).
const wantWidgetColumns = `[
 {"name":"Name","type":"string","format":"name","description":"Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names","priority":0},
 {"name":"Size","type":"integer","format":"","description":"Custom resource definition column (in JSONPath format): .spec.size","priority":0},
 {"name":"Color","type":"string","format":"","description":"Custom resource definition column (in JSONPath format): .spec.color","priority":1}]`

func decodeTable(t *testing.T, body []byte) (metav1.Table, map[string]any) {
	t.Helper()
	var table metav1.Table
	if err := json.Unmarshal(body, &table); err != nil {
		t.Fatalf("decoding Table: %v: %s", err, body)
	}
	var generic map[string]any
	if err := json.Unmarshal(body, &generic); err != nil {
		t.Fatal(err)
	}
	if table.Kind != "Table" || table.APIVersion != "meta.k8s.io/v1" {
		t.Fatalf("not a meta.k8s.io/v1 Table: %s", body)
	}
	return table, generic
}

func jsonEqual(t *testing.T, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	gb, _ := json.Marshal(got)
	var g any
	_ = json.Unmarshal(gb, &g)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s\n got %s\nwant %s", what, gb, want)
	}
}

func TestTableList(t *testing.T) {
	store := seeded(t)
	store.put(testRegistry().Lookup("shop.example.com", "v1", "widgets"), "default",
		`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w2","generateName":"w","uid":"u2"},"spec":{"size":1.9}}`)
	w := serve(t, newTestServer(t, store), request{path: widgetsPath, headers: map[string]string{"Accept": acceptTable}})
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("code %d, %q: %s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	table, generic := decodeTable(t, w.Body.Bytes())
	jsonEqual(t, "columnDefinitions", generic["columnDefinitions"], wantWidgetColumns)
	if table.ResourceVersion != "3" {
		t.Errorf("resourceVersion = %q", table.ResourceVersion)
	}
	jsonEqual(t, "cells", []any{table.Rows[0].Cells, table.Rows[1].Cells}, `[["w1",3,"red"],["w2",1,null]]`)
	jsonEqual(t, "row object", json.RawMessage(table.Rows[1].Object.Raw),
		`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"w2","generateName":"w","uid":"u2","resourceVersion":"3","namespace":"default","creationTimestamp":"2026-11-21T10:19:21Z"}}`)
}

func TestTableOneObject(t *testing.T) {
	w := serve(t, newTestServer(t, seeded(t)), request{path: widgetsPath + "/w1", headers: map[string]string{"Accept": acceptTable}})
	table, _ := decodeTable(t, w.Body.Bytes())
	if len(table.Rows) != 1 || table.ResourceVersion != "1" {
		t.Fatalf("table: %s", w.Body)
	}
	jsonEqual(t, "cells", table.Rows[0].Cells, `["w1",3,"red"]`)
}

func TestTableEmptyList(t *testing.T) {
	w := serve(t, newTestServer(t, newFakeStore()), request{path: widgetsPath, headers: map[string]string{"Accept": acceptTable}})
	if !strings.Contains(w.Body.String(), `"rows":[]`) {
		t.Errorf("an empty list has rows [], got %s", w.Body)
	}
}

func TestTableDefaultAgeColumn(t *testing.T) {
	w := serve(t, newTestServer(t, seeded(t)), request{path: "/apis/shop.example.com/v1/warehouses",
		headers: map[string]string{"Accept": acceptTable}})
	table, _ := decodeTable(t, w.Body.Bytes())
	if n := len(table.ColumnDefinitions); n != 2 || table.ColumnDefinitions[1].Name != "Age" ||
		table.ColumnDefinitions[1].Type != "date" ||
		!strings.HasPrefix(table.ColumnDefinitions[1].Description, "CreationTimestamp is a timestamp") {
		t.Fatalf("columns = %+v", table.ColumnDefinitions)
	}
	jsonEqual(t, "cells", table.Rows[0].Cells, `["north","5m"]`)
}

func TestTableIncludeObject(t *testing.T) {
	tests := map[string]struct {
		query string
		code  int
		check func(t *testing.T, raw []byte)
	}{
		"Metadata": {query: "?includeObject=Metadata", code: 200, check: func(t *testing.T, raw []byte) {
			if !strings.HasPrefix(string(raw), `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"w1"`) {
				t.Errorf("object = %s", raw)
			}
		}},
		"None": {query: "?includeObject=None", code: 200, check: func(t *testing.T, raw []byte) {
			if string(raw) != "null" {
				t.Errorf("object = %s", raw)
			}
		}},
		"Object": {query: "?includeObject=Object", code: 200, check: func(t *testing.T, raw []byte) {
			if !strings.Contains(string(raw), `"spec":{"size":3`) {
				t.Errorf("object = %s", raw)
			}
		}},
		"invalid": {query: "?includeObject=All", code: 400},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := serve(t, newTestServer(t, seeded(t)), request{path: widgetsPath + tc.query, headers: map[string]string{"Accept": acceptTable}})
			if w.Code != tc.code {
				t.Fatalf("code %d: %s", w.Code, w.Body)
			}
			if tc.check == nil {
				return
			}
			var raw struct {
				Rows []struct{ Object json.RawMessage } `json:"rows"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &raw); err != nil || len(raw.Rows) != 1 {
				t.Fatalf("%v: %s", err, w.Body)
			}
			tc.check(t, raw.Rows[0].Object)
		})
	}
}

func TestCells(t *testing.T) {
	obj := `{"metadata":{"name":"x","creationTimestamp":"2026-11-21T08:24:21Z","labels":{"app.kubernetes.io/name":"web"}},
		"spec":{"size":3,"ratio":0.5,"big":1e3,"on":true,"name":"n","list":[{"a":1},{"b":"two"}],"nested":{"k":"v"}},
		"status":{"conditions":[{"type":"Ready","status":"True"},{"type":"Synced","status":"False"}],"when":"yesterday"}}`
	tests := map[string]struct {
		typ, path string
		want      any
	}{
		"integer":              {"integer", ".spec.size", int64(3)},
		"integer truncates":    {"integer", ".spec.ratio", int64(0)},
		"integer of a string":  {"integer", ".spec.name", nil},
		"number":               {"number", ".spec.ratio", 0.5},
		"number of an integer": {"number", ".spec.size", 3.0},
		"boolean":              {"boolean", ".spec.on", true},
		"string":               {"string", ".spec.name", "n"},
		"string of a number":   {"string", ".spec.big", "1000"},
		"string of a boolean":  {"string", ".spec.on", "true"},
		"string of an object":  {"string", ".spec.nested", `{"k":"v"}`},
		"string of an array":   {"string", ".spec.list", `[{"a":1},{"b":"two"}]`},
		"index":                {"integer", ".spec.list[0].a", int64(1)},
		"bracket name":         {"string", ".metadata.labels['app.kubernetes.io/name']", "web"},
		"missing":              {"string", ".spec.nope", nil},
		"date":                 {"date", ".metadata.creationTimestamp", "120m"},
		"invalid date":         {"date", ".status.when", "<invalid>"},
		"filter":               {"string", `.status.conditions[?(@.type=="Ready")].status`, "True"},
		"filter integer":       {"integer", `.spec.list[?(@.a==1)].a`, int64(1)},
		"wildcard":             {"string", `.status.conditions[*].type`, "Ready"},
		"unparsable":           {"string", `.spec[`, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			rv := &schemas.ResourceVersion{PrinterColumns: []schemas.PrinterColumn{{Name: "C", Type: tc.typ, JSONPath: tc.path}}}
			cols := columnsFor(rv)
			var decoded *decodedObject
			got := cols[0].cell(obj, &decoded, cellContext{now: testNow})
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("cell = %#v, want %#v", got, tc.want)
			}
		})
	}
}

// TestCountCell: a built-in kind's count column adds up the entries of
// its maps and lists, as kube's Data column of a ConfigMap does; none is
// 0.
func TestCountCell(t *testing.T) {
	rv := &schemas.ResourceVersion{PrinterColumns: []schemas.PrinterColumn{{Name: "Data", Type: "integer", Count: []string{".data", ".binaryData"}}}}
	col := columnsFor(rv)[0]
	for obj, want := range map[string]int64{
		`{"data":{"a":"1","b":"2"},"binaryData":{"c":"AA=="}}`: 3,
		`{"data":{"a":"1"}}`:            1,
		`{"metadata":{"name":"empty"}}`: 0,
	} {
		var decoded *decodedObject
		if got := col.cell(obj, &decoded, cellContext{now: testNow}); got != want {
			t.Errorf("%s: %#v, want %d", obj, got, want)
		}
	}
}

func TestGJSONPath(t *testing.T) {
	tests := map[string]struct {
		in, want string
		ok       bool
	}{
		"fields":        {".spec.size", "spec.size", true},
		"index":         {".spec.items[2].name", "spec.items.2.name", true},
		"quoted":        {`.metadata.annotations['a.b/c']`, `metadata.annotations.a\.b\/c`, true},
		"double quoted": {`.metadata.annotations["x"]`, "metadata.annotations.x", true},
		"filter":        {`.a[?(@.b=="c")]`, "", false},
		"wildcard":      {".a[*]", "", false},
		"recursive":     {"..a", "", false},
		"empty":         {"", "", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, ok := gjsonPath(tc.in)
			if got != tc.want || ok != tc.ok {
				t.Errorf("gjsonPath(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestNegotiation(t *testing.T) {
	tests := map[string]struct {
		accept      string
		path        string
		code        int
		contentType string
		table       bool
	}{
		"none":                 {accept: "", code: 200, contentType: "application/json"},
		"json":                 {accept: "application/json", code: 200, contentType: "application/json"},
		"any":                  {accept: "*/*", code: 200, contentType: "application/json"},
		"application/*":        {accept: "text/html, application/*", code: 200, contentType: "application/json"},
		"yaml":                 {accept: "application/yaml", code: 200, contentType: "application/yaml"},
		"protobuf then json":   {accept: "application/vnd.kubernetes.protobuf, application/json", code: 200, contentType: "application/json"},
		"table":                {accept: acceptTable, code: 200, contentType: "application/json", table: true},
		"table as yaml":        {accept: "application/yaml;as=Table;v=v1;g=meta.k8s.io", code: 200, contentType: "application/yaml", table: true},
		"q prefers json":       {accept: "application/yaml;q=0.5, application/json", code: 200, contentType: "application/json"},
		"v1beta1 table only":   {accept: "application/json;as=Table;v=v1beta1;g=meta.k8s.io", code: 406},
		"partial metadata":     {accept: "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io", code: 200, contentType: "application/json"},
		"v1beta1 partial only": {accept: "application/json;as=PartialObjectMetadata;v=v1beta1;g=meta.k8s.io", code: 406},
		"html":                 {accept: "text/html", code: 406},
		"protobuf":             {accept: "application/vnd.kubernetes.protobuf", code: 406},
	}
	for name, tc := range tests {
		for _, path := range []string{widgetsPath, widgetsPath + "/w1"} {
			t.Run(name+" "+path, func(t *testing.T) {
				w := serve(t, newTestServer(t, seeded(t)), request{path: path, headers: map[string]string{"Accept": tc.accept}})
				if w.Code != tc.code {
					t.Fatalf("code %d, want %d: %s", w.Code, tc.code, w.Body)
				}
				if tc.code == 406 {
					if st := decodeStatus(t, w); st.Reason != metav1.StatusReasonNotAcceptable {
						t.Errorf("status: %s", w.Body)
					}
					return
				}
				if ct := w.Header().Get("Content-Type"); ct != tc.contentType {
					t.Errorf("Content-Type = %q, want %q", ct, tc.contentType)
				}
				body := w.Body.Bytes()
				if tc.contentType == "application/yaml" {
					var err error
					if body, err = yaml.YAMLToJSON(body); err != nil {
						t.Fatal(err)
					}
				}
				var kind struct{ Kind string }
				_ = json.Unmarshal(body, &kind)
				if (kind.Kind == "Table") != tc.table {
					t.Errorf("kind = %q: %s", kind.Kind, w.Body)
				}
			})
		}
	}
}

func TestGetWritesStoredBytesAsTheyAre(t *testing.T) {
	store := newFakeStore()
	rv := testRegistry().Lookup("shop.example.com", "v1", "widgets")
	stored := store.put(rv, "default", `{"apiVersion":"shop.example.com/v1","kind":"Widget",  "metadata":{"name":"odd"},"spec":{"z":1,"a":2}}`)
	w := serve(t, newTestServer(t, store), request{path: widgetsPath + "/odd"})
	if w.Body.String() != stored {
		t.Errorf("body %s, want the stored bytes %s", w.Body, stored)
	}
	if w.Header().Get("Cache-Control") != "no-cache, private" {
		t.Errorf("Cache-Control = %q", w.Header().Get("Cache-Control"))
	}
}
