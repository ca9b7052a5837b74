package check

import (
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// listTypes reports a changed x-kubernetes-list-type, list-map-keys or
// map-type: server-side apply merges lists and maps by them, so a client
// that applies its fields finds them merged differently, and the managed
// fields recorded for it no longer name the same elements.
func (c fieldCompare) listTypes(o, n *openapi3.Schema, np, path string) {
	if typeName(n) == "array" {
		ot, nt := listType(o), listType(n)
		if ot != nt {
			c.newf("list-type-changed", extPointer(n, np, "x-kubernetes-list-type"), path,
				"the list type of %s changes from %s to %s: server-side apply merges it differently", fieldName(path), ot, nt)
		} else if okeys, nkeys := mapKeys(o), mapKeys(n); nt == "map" && !slices.Equal(okeys, nkeys) {
			c.newf("list-type-changed", extPointer(n, np, "x-kubernetes-list-map-keys"), path,
				"the keys of map list %s change from [%s] to [%s]: server-side apply tells its elements apart by them",
				fieldName(path), strings.Join(okeys, ", "), strings.Join(nkeys, ", "))
		}
	}
	if typeName(n) == "object" {
		if om, nm := mapType(o), mapType(n); om != nm {
			c.newf("map-type-changed", extPointer(n, np, "x-kubernetes-map-type"), path,
				"the map type of %s changes from %s to %s: server-side apply merges it differently", fieldName(path), om, nm)
		}
	}
}

// listType is a list's x-kubernetes-list-type; atomic when unsaid.
func listType(s *openapi3.Schema) string {
	var t string
	if ok, err := extension(s, "x-kubernetes-list-type", &t); !ok || err != nil || t == "" {
		return "atomic"
	}
	return t
}

func mapKeys(s *openapi3.Schema) []string {
	var keys []string
	_, _ = extension(s, "x-kubernetes-list-map-keys", &keys)
	return keys
}

// mapType is an object's x-kubernetes-map-type; granular when unsaid.
func mapType(s *openapi3.Schema) string {
	var t string
	if ok, err := extension(s, "x-kubernetes-map-type", &t); !ok || err != nil || t == "" {
		return "granular"
	}
	return t
}

// extPointer is the pointer of extension name in schema s at p, or of s
// when the extension is not there (it was removed).
func extPointer(s *openapi3.Schema, p, name string) string {
	if _, ok := s.Extensions[name]; ok {
		return p + "/" + name
	}
	return p
}
