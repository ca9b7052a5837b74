package structural

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
)

// mustCompile compiles a JSON schema or fails the test.
func mustCompile(t testing.TB, schemaJSON string) *Schema {
	t.Helper()
	s, errs := compileJSON(t, schemaJSON)
	if len(errs) > 0 {
		t.Fatalf("compile: %v", errs)
	}
	return s
}

func compileJSON(t testing.TB, schemaJSON string) (*Schema, []CompileError) {
	t.Helper()
	var sch openapi3.Schema
	if err := json.Unmarshal([]byte(schemaJSON), &sch); err != nil {
		t.Fatalf("schema: %v", err)
	}
	return Compile(&sch)
}

// object decodes a JSON object with preserved integers.
func object(t testing.TB, objJSON string) map[string]any {
	t.Helper()
	var obj map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(objJSON), &obj); err != nil {
		t.Fatalf("object: %v", err)
	}
	return obj
}

func toJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// errorStrings renders field errors as kube-apiserver prints them, with
// their reason: "FieldValueRequired spec.size: Required value".
func errorStrings(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Error())
	}
	return out
}

func joinLines(ss []string) string { return strings.Join(ss, "\n") }

func itoa(i int) string { return strconv.Itoa(i) }
