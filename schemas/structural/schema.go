package structural

import (
	"github.com/getkin/kin-openapi/openapi3"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Schema is a compiled structural schema for a whole object. At the root,
// apiVersion, kind and metadata are implied: Prune keeps them, Validate and
// Default leave them to the caller. A Schema is immutable and safe for
// concurrent use.
type Schema struct {
	root  *node
	rules RuleSet // nil: no CEL rules (see WithRules)
}

// CompileError is a problem in a schema, at a JSON pointer relative to the
// schema that was compiled.
type CompileError struct {
	Pointer string
	Message string
}

// Error renders the problem as "pointer: message".
func (e CompileError) Error() string {
	if e.Pointer == "" {
		return "/: " + e.Message
	}
	return e.Pointer + ": " + e.Message
}

// Compile builds a Schema from a kin-openapi schema whose $refs are resolved.
// It returns every problem it finds; the Schema is nil when there is any.
func Compile(s *openapi3.Schema) (*Schema, []CompileError) {
	if s == nil {
		return nil, []CompileError{{Pointer: "", Message: "missing schema"}}
	}
	c := compiler{visiting: map[*openapi3.Schema]bool{}}
	root := c.compile(s, "")
	if len(c.errs) == 0 {
		c.checkDefaults(root, "", false, true)
	}
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	markDefaults(root)
	return &Schema{root: root}, nil
}

// Prune removes, in place, every field the schema does not declare (unless
// x-kubernetes-preserve-unknown-fields keeps it) and returns the removed
// fields' paths ("spec.bogus", "spec.items[0].x"), sorted. The metadata of
// embedded resources is reduced to ObjectMeta's fields.
func (s *Schema) Prune(obj map[string]any) []string {
	return s.prune(obj)
}

// Default applies the schema's defaults in place. As kube-apiserver does
// first, null values of fields that are neither nullable nor defaulted are
// removed; a non-nullable null with a default is replaced by the default.
func (s *Schema) Default(obj map[string]any) {
	pruneNulls(obj, s.root, true)
	applyDefaults(obj, s.root, true)
}

// Validate returns every field error in obj, with paths from the object root
// ("spec.size") and the reasons and messages kube-apiserver uses.
func (s *Schema) Validate(obj map[string]any) field.ErrorList {
	return s.validate(obj, nil)
}

// ValidateUpdate is Validate for an update of old to obj, with kube's
// ratcheting (CRDValidationRatcheting): a value equal to the old value
// the schema pairs it with (by property, map key, or the keys of a map
// list) is not validated again, so an update is not refused for what it
// left as it was, although the schema no longer admits it.
func (s *Schema) ValidateUpdate(obj, old map[string]any) field.ErrorList {
	return s.validate(obj, old)
}
