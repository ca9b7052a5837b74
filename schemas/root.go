package schemas

import (
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// rootExtensionsWithStatus are the extensions a CRD allows at the root of
// its schema when the status subresource is on.
var rootExtensionsWithStatus = map[string]bool{
	"x-kubernetes-preserve-unknown-fields": true,
	"x-kubernetes-validations":             true,
}

// checkRoot applies the CRD rules for the root of a resource schema (at
// pointer at): an object, not nullable, and, with the status subresource,
// only keywords that still hold once status is validated on its own.
func checkRoot(d decoder, at string, s *openapi3.Schema, status bool) {
	if s.Type == nil || !s.Type.Is("object") {
		d.probs.add(d.file, ptr(at, "type"), "a resource schema must have type: object")
	}
	if s.Nullable {
		d.probs.add(d.file, ptr(at, "nullable"), "must not be true at the root of a resource schema")
	}
	if !status {
		return
	}
	for _, kw := range rootKeywordsNotAllowedWithStatus(s) {
		d.probs.add(d.file, ptr(at, kw), "%s is not allowed at the root of a resource schema with the status subresource; "+
			"put it under properties (description, type, required, properties and the like are allowed)", kw)
	}
}

func rootKeywordsNotAllowedWithStatus(s *openapi3.Schema) []string {
	var out []string
	set := map[string]bool{
		"allOf": len(s.AllOf) > 0, "anyOf": len(s.AnyOf) > 0, "oneOf": len(s.OneOf) > 0, "not": s.Not != nil,
		"enum": len(s.Enum) > 0, "default": s.Default != nil,
		"additionalProperties": s.AdditionalProperties.Has != nil || s.AdditionalProperties.Schema != nil,
		"minProperties":        s.MinProps > 0, "maxProperties": s.MaxProps != nil,
		"discriminator": s.Discriminator != nil, "readOnly": s.ReadOnly, "writeOnly": s.WriteOnly,
		"deprecated": s.Deprecated, "xml": s.XML != nil,
	}
	for kw, present := range set {
		if present {
			out = append(out, kw)
		}
	}
	for k := range s.Extensions {
		if strings.HasPrefix(k, "x-kubernetes-") && !rootExtensionsWithStatus[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
