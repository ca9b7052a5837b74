package schemas

import (
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"k8s.io/client-go/util/jsonpath"
)

// The CRD rules for additionalPrinterColumns and selectableFields.
var (
	columnTypes   = []string{"boolean", "date", "integer", "number", "string"}
	columnFormats = []string{"byte", "date", "date-time", "double", "float", "int32", "int64", "password"}
)

// maxSelectableFields is the CRD limit.
const maxSelectableFields = 8

func decodePrinterColumns(d decoder, list []any, at string) []PrinterColumn {
	cols := make([]PrinterColumn, 0, len(list))
	for i, v := range list {
		cat := ptr(at, index(i))
		m, ok := d.object(v, cat, "name", "type", "format", "jsonPath", "description", "priority", "count")
		if !ok {
			continue
		}
		var c PrinterColumn
		c.Name, _ = d.str(m, "name", cat)
		c.Type, _ = d.str(m, "type", cat)
		c.Format, _ = d.str(m, "format", cat)
		c.JSONPath, _ = d.str(m, "jsonPath", cat)
		c.Description, _ = d.str(m, "description", cat)
		c.Priority = d.int32(m, "priority", cat)
		c.Count = decodeCount(d, m, cat)
		checkColumn(d, c, m, cat)
		cols = append(cols, c)
	}
	return cols
}

func checkColumn(d decoder, c PrinterColumn, m map[string]any, at string) {
	if missing(m, "name") {
		d.probs.add(d.file, ptr(at, "name"), "name is required")
	}
	switch {
	case missing(m, "type"):
		d.probs.add(d.file, ptr(at, "type"), "type is required: must be one of %s", strings.Join(columnTypes, ","))
	case c.Type != "" && !contains(columnTypes, c.Type):
		d.probs.add(d.file, ptr(at, "type"), "type %q: must be one of %s", c.Type, strings.Join(columnTypes, ","))
	}
	if c.Format != "" && !contains(columnFormats, c.Format) {
		d.probs.add(d.file, ptr(at, "format"), "format %q: must be one of %s", c.Format, strings.Join(columnFormats, ","))
	}
	if c.Priority < 0 {
		d.probs.add(d.file, ptr(at, "priority"), "priority %d: must not be negative", c.Priority)
	}
	if missing(m, "jsonPath") && missing(m, "count") {
		d.probs.add(d.file, ptr(at, "jsonPath"), "jsonPath is required")
	} else if msg := jsonPathError(c.JSONPath); c.JSONPath != "" && msg != "" {
		d.probs.add(d.file, ptr(at, "jsonPath"), "jsonPath %q: %s", c.JSONPath, msg)
	}
}

// decodeCount reads a built-in kind's count column: the paths whose
// entries it counts.
func decodeCount(d decoder, m map[string]any, at string) []string {
	if missing(m, "count") {
		return nil
	}
	cat := ptr(at, "count")
	if !d.builtin {
		d.probs.add(d.file, cat, "count is for specd's built-in kinds: a column is the value at its jsonPath")
		return nil
	}
	var paths []string
	for i, v := range d.list(m, "count", at) {
		p, ok := v.(string)
		if msg := jsonPathError(p); !ok || msg != "" {
			d.probs.add(d.file, ptr(cat, index(i)), "count %v: must be JSONPaths", v)
			continue
		}
		paths = append(paths, p)
	}
	return paths
}

// jsonPathError applies the CRD rule (a simple path starting with ".")
// and then parses the path as kubectl and kube-apiserver do for tables.
func jsonPathError(p string) string {
	switch {
	case p == "":
		return "must not be empty"
	case p[0] != '.':
		return "must be a simple json path starting with ."
	}
	if err := jsonpath.New("column").Parse("{" + p + "}"); err != nil {
		return fmt.Sprintf("is not a valid JSONPath: %v", err)
	}
	return ""
}

func decodeSelectableFields(d decoder, list []any, at string, s *openapi3.Schema) []SelectableField {
	out := make([]SelectableField, 0, len(list))
	seen := map[string]bool{}
	for i, v := range list {
		fat := ptr(at, index(i))
		m, ok := d.object(v, fat, "jsonPath")
		if !ok {
			continue
		}
		p, _ := d.str(m, "jsonPath", fat)
		if p == "" {
			d.probs.add(d.file, ptr(fat, "jsonPath"), "jsonPath is required")
			continue
		}
		if msg := selectableFieldError(p, s); msg != "" {
			d.probs.add(d.file, ptr(fat, "jsonPath"), "jsonPath %q: %s", p, msg)
			continue
		}
		if seen[p] {
			d.probs.add(d.file, ptr(fat, "jsonPath"), "jsonPath %q: duplicate value", p)
			continue
		}
		seen[p] = true
		out = append(out, SelectableField{JSONPath: p})
	}
	if len(seen) > maxSelectableFields && !d.builtin { // kube's Event has 10
		d.probs.add(d.file, at, "too many selectable fields: %d, must have at most %d", len(seen), maxSelectableFields)
	}
	return out
}

// selectableFieldError checks that p is a dot path to a string, boolean
// or integer field of s outside metadata, as a CRD's selectableFields.
func selectableFieldError(p string, s *openapi3.Schema) string {
	if !strings.HasPrefix(p, ".") || strings.ContainsAny(p, "[]") {
		return "is an invalid path: must be a simple path in dot notation, such as .spec.color"
	}
	segs := strings.Split(p[1:], ".")
	if segs[0] == "metadata" {
		return "must not point to fields in metadata"
	}
	cur := s
	for _, seg := range segs {
		if seg == "" {
			return "is an invalid path: empty field name"
		}
		next := childSchema(cur, seg)
		if next == nil {
			return fmt.Sprintf("is an invalid path: the schema has no field %q there", seg)
		}
		cur = next
	}
	if cur.Type == nil || !(cur.Type.Is("string") || cur.Type.Is("boolean") || cur.Type.Is("integer")) {
		return "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."
	}
	return ""
}

// childSchema is the schema of field name inside object schema s: a
// declared property, or the additionalProperties schema of a map.
func childSchema(s *openapi3.Schema, name string) *openapi3.Schema {
	if s == nil {
		return nil
	}
	if p := s.Properties[name]; p != nil {
		return p.Value
	}
	if ap := s.AdditionalProperties.Schema; ap != nil {
		return ap.Value
	}
	return nil
}

// missing reports whether a required string field is absent or empty (a
// value of the wrong type is reported by the decoder).
func missing(m map[string]any, key string) bool {
	v, present := m[key]
	return !present || v == ""
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
