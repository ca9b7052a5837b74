package structural

import (
	"encoding/json"

	"github.com/getkin/kin-openapi/openapi3"
)

// The Kubernetes vendor extensions a structural schema may carry.
const (
	extPreserveUnknownFields = "x-kubernetes-preserve-unknown-fields"
	extIntOrString           = "x-kubernetes-int-or-string"
	extEmbeddedResource      = "x-kubernetes-embedded-resource"
	extListType              = "x-kubernetes-list-type"
	extListMapKeys           = "x-kubernetes-list-map-keys"
	extMapType               = "x-kubernetes-map-type"
	extValidations           = "x-kubernetes-validations"
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
	c.boolExt(s, ptr, extPreserveUnknownFields, &n.preserveUnknown)
	c.boolExt(s, ptr, extEmbeddedResource, &n.embedded)
	var intOrString bool
	c.boolExt(s, ptr, extIntOrString, &intOrString)
	if intOrString {
		if n.types != 0 {
			c.errorf(pointerJoin(ptr, "type"), "must be empty if %s is true", extIntOrString)
		}
		n.types, n.typeNames = tInteger|tString, "integer,string"
	}
	if n.embedded && n.types != tObject {
		c.errorf(pointerJoin(ptr, "type"), "must be object if %s is true", extEmbeddedResource)
	}
	c.compileListType(n, s, ptr)
	var mapType string
	if c.stringExt(s, ptr, extMapType, &mapType) && mapType != "granular" && mapType != "atomic" {
		c.errorf(pointerJoin(ptr, extMapType), "unsupported value %q: supported values: \"granular\", \"atomic\"", mapType)
	}
	// CEL rules are accepted but not evaluated yet (see doc.go); they must
	// at least be a list of rules.
	var rules []map[string]any
	if _, err := Extension(s, extValidations, &rules); err != nil {
		c.errorf(pointerJoin(ptr, extValidations), "must be a list of rules: %v", err)
	}
}

func (c *compiler) compileListType(n *node, s *openapi3.Schema, ptr string) {
	c.stringExt(s, ptr, extListType, &n.listType)
	keysPtr := pointerJoin(ptr, extListMapKeys)
	hasKeys, err := Extension(s, extListMapKeys, &n.listMapKeys)
	if err != nil {
		c.errorf(keysPtr, "must be a list of strings: %v", err)
	}
	switch n.listType {
	case "", "atomic", "set":
		if hasKeys {
			c.errorf(keysPtr, "must be empty if %s is not \"map\"", extListType)
		}
	case "map":
		if len(n.listMapKeys) == 0 {
			c.errorf(keysPtr, "must not be empty if %s is \"map\"", extListType)
		}
	default:
		c.errorf(pointerJoin(ptr, extListType), "unsupported value %q: supported values: \"atomic\", \"set\", \"map\"", n.listType)
	}
	if n.listType != "" && n.types != tArray {
		c.errorf(pointerJoin(ptr, extListType), "must only be used with type array")
	}
}

func (c *compiler) boolExt(s *openapi3.Schema, ptr, name string, out *bool) {
	if _, err := Extension(s, name, out); err != nil {
		c.errorf(pointerJoin(ptr, name), "must be a boolean: %v", err)
	}
}

func (c *compiler) stringExt(s *openapi3.Schema, ptr, name string, out *string) bool {
	ok, err := Extension(s, name, out)
	if err != nil {
		c.errorf(pointerJoin(ptr, name), "must be a string: %v", err)
	}
	return ok
}
