package celrules

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
)

// compileJSON compiles the rules of a JSON schema.
func compileJSON(t testing.TB, schemaJSON string) (*Rules, []Problem) {
	t.Helper()
	return Compile(parseSchema(t, schemaJSON))
}

// parseSchema decodes a JSON schema.
func parseSchema(t testing.TB, schemaJSON string) *openapi3.Schema {
	t.Helper()
	var s openapi3.Schema
	if err := json.Unmarshal([]byte(schemaJSON), &s); err != nil {
		t.Fatalf("schema: %v", err)
	}
	return &s
}

// mustCompile compiles a JSON schema that must have rules and no problem.
func mustCompile(t testing.TB, schemaJSON string) *Rules {
	t.Helper()
	r, probs := compileJSON(t, schemaJSON)
	if len(probs) > 0 {
		t.Fatalf("compile: %v", probs)
	}
	if r == nil {
		t.Fatal("compile: no rules")
	}
	return r
}

// object decodes a JSON object with preserved integers; "" is nil.
func object(t testing.TB, objJSON string) map[string]any {
	t.Helper()
	if objJSON == "" {
		return nil
	}
	var obj map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(objJSON), &obj); err != nil {
		t.Fatalf("object: %v", err)
	}
	return obj
}

// validate runs the rules on obj (old on update, "" on create) and renders
// the errors with their reasons, as Status causes carry them.
func validate(t testing.TB, r *Rules, obj, old string) string {
	t.Helper()
	errs, _ := r.Validate(context.Background(), object(t, obj), object(t, old), nil)
	return errorLines(errs)
}

func errorLines(errs field.ErrorList) string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Error())
	}
	return strings.Join(out, "\n")
}

func problemLines(probs []Problem) string {
	out := make([]string, 0, len(probs))
	for _, p := range probs {
		out = append(out, p.Error())
	}
	return strings.Join(out, "\n")
}
