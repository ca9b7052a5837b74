package structural

import (
	"encoding/json"

	"github.com/getkin/kin-openapi/openapi3"
)

// The Kubernetes vendor extensions a structural schema may carry; the
// CEL layer (schemas/celrules) reads the same.
const (
	ExtPreserveUnknownFields = "x-kubernetes-preserve-unknown-fields"
	ExtIntOrString           = "x-kubernetes-int-or-string"
	ExtEmbeddedResource      = "x-kubernetes-embedded-resource"
	ExtListType              = "x-kubernetes-list-type"
	ExtListMapKeys           = "x-kubernetes-list-map-keys"
	ExtMapType               = "x-kubernetes-map-type"
	ExtValidations           = "x-kubernetes-validations"
)

// Extension decodes the extension name of s into out and reports whether s
// has it. kin-openapi stores extensions as decoded JSON (any) when it
// unmarshals a document, and callers building schemas by hand may store
// json.RawMessage: both are accepted.
func Extension(s *openapi3.Schema, name string, out any) (bool, error) {
	v, ok := s.Extensions[name]
	if !ok {
		return false, nil
	}
	var raw []byte
	switch v := v.(type) {
	case json.RawMessage:
		raw = v
	case []byte:
		raw = v
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return true, err
		}
		raw = b
	}
	return true, json.Unmarshal(raw, out)
}

func (c *compiler) compileExtensions(n *node, s *openapi3.Schema, ptr string) {
	if len(s.Extensions) == 0 {
		return
	}
	c.boolExt(s, ptr, ExtPreserveUnknownFields, &n.preserveUnknown)
	c.boolExt(s, ptr, ExtEmbeddedResource, &n.embedded)
	var intOrString bool
	c.boolExt(s, ptr, ExtIntOrString, &intOrString)
	if intOrString {
		if n.types != 0 {
			c.errorf(PointerJoin(ptr, "type"), "must be empty if %s is true", ExtIntOrString)
		}
		n.types, n.typeNames = tInteger|tString, "integer,string"
	}
	if n.embedded && n.types != tObject {
		c.errorf(PointerJoin(ptr, "type"), "must be object if %s is true", ExtEmbeddedResource)
	}
	c.compileListType(n, s, ptr)
	var mapType string
	if c.stringExt(s, ptr, ExtMapType, &mapType) && mapType != "granular" && mapType != "atomic" {
		c.errorf(PointerJoin(ptr, ExtMapType), "unsupported value %q: supported values: \"granular\", \"atomic\"", mapType)
	}
	// CEL rules are accepted but not evaluated yet (see doc.go); they must
	// at least be a list of rules.
	var rules []map[string]any
	if _, err := Extension(s, ExtValidations, &rules); err != nil {
		c.errorf(PointerJoin(ptr, ExtValidations), "must be a list of rules: %v", err)
	}
}

func (c *compiler) compileListType(n *node, s *openapi3.Schema, ptr string) {
	c.stringExt(s, ptr, ExtListType, &n.listType)
	keysPtr := PointerJoin(ptr, ExtListMapKeys)
	hasKeys, err := Extension(s, ExtListMapKeys, &n.listMapKeys)
	if err != nil {
		c.errorf(keysPtr, "must be a list of strings: %v", err)
	}
	switch n.listType {
	case "", "atomic", "set":
		if hasKeys {
			c.errorf(keysPtr, "must be empty if %s is not \"map\"", ExtListType)
		}
	case "map":
		if len(n.listMapKeys) == 0 {
			c.errorf(keysPtr, "must not be empty if %s is \"map\"", ExtListType)
		}
	default:
		c.errorf(PointerJoin(ptr, ExtListType), "unsupported value %q: supported values: \"atomic\", \"set\", \"map\"", n.listType)
	}
	if n.listType != "" && n.types != tArray {
		c.errorf(PointerJoin(ptr, ExtListType), "must only be used with type array")
	}
}

func (c *compiler) boolExt(s *openapi3.Schema, ptr, name string, out *bool) {
	if _, err := Extension(s, name, out); err != nil {
		c.errorf(PointerJoin(ptr, name), "must be a boolean: %v", err)
	}
}

func (c *compiler) stringExt(s *openapi3.Schema, ptr, name string, out *string) bool {
	ok, err := Extension(s, name, out)
	if err != nil {
		c.errorf(PointerJoin(ptr, name), "must be a string: %v", err)
	}
	return ok
}
