package structural

import (
	"github.com/getkin/kin-openapi/openapi3"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Schema is a compiled structural schema for a whole object. At the root,
// apiVersion, kind and metadata are implied: Prune keeps them, Validate and
// Default leave them to the caller.
type Schema struct {
	// TODO(structural helper): the compiled tree.
}

// CompileError is a problem in a schema, at a JSON pointer relative to the
// schema that was compiled.
type CompileError struct {
	Pointer string
	Message string
}

// Compile builds a Schema from a kin-openapi schema whose $refs are resolved.
// It returns every problem it finds.
func Compile(s *openapi3.Schema) (*Schema, []CompileError) {
	panic("not implemented")
}

// Prune removes, in place, every field the schema does not declare (unless
// x-kubernetes-preserve-unknown-fields keeps it) and returns the removed
// fields' paths ("spec.bogus", "spec.items[0].x"), sorted.
func (s *Schema) Prune(obj map[string]any) []string {
	panic("not implemented")
}

// Default applies the schema's defaults in place.
func (s *Schema) Default(obj map[string]any) {
	panic("not implemented")
}

// Validate returns every field error in obj, with paths from the object root
// ("spec.size") and the reasons and messages kube-apiserver uses.
func (s *Schema) Validate(obj map[string]any) field.ErrorList {
	panic("not implemented")
}
