package schemas

import (
	"encoding/json"
	"math"
	"sort"
)

// decoder reads an x-specd extension value (decoded JSON: map[string]any,
// []any, string, bool, numbers) field by field, reporting each wrong field
// at its own JSON pointer.
type decoder struct {
	file   string
	digest string // of file's content
	// builtin is true for the files built into specd.
	builtin bool
	probs   *problems
}

// object returns v as an object, reporting fields not in known.
func (d decoder) object(v any, at string, known ...string) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		d.probs.add(d.file, at, "must be an object, not %s", jsonType(v))
		return nil, false
	}
	allowed := make(map[string]bool, len(known))
	for _, k := range known {
		allowed[k] = true
	}
	for _, k := range sortedKeys(m) {
		if !allowed[k] {
			d.probs.add(d.file, ptr(at, k), "unknown field %q", k)
		}
	}
	return m, true
}

// str reads an optional string field; ok is false when it is absent or
// wrong.
func (d decoder) str(m map[string]any, key, at string) (string, bool) {
	v, present := m[key]
	if !present {
		return "", false
	}
	s, isStr := v.(string)
	if !isStr {
		d.probs.add(d.file, ptr(at, key), "must be a string, not %s", jsonType(v))
		return "", false
	}
	return s, true
}

// strs reads an optional list of strings.
func (d decoder) strs(m map[string]any, key, at string) []string {
	v, present := m[key]
	if !present {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		d.probs.add(d.file, ptr(at, key), "must be a list of strings, not %s", jsonType(v))
		return nil
	}
	out := make([]string, 0, len(list))
	for i, item := range list {
		s, ok := item.(string)
		if !ok {
			d.probs.add(d.file, ptr(at, key, index(i)), "must be a string, not %s", jsonType(item))
			continue
		}
		out = append(out, s)
	}
	return out
}

// boolean reads an optional boolean field.
func (d decoder) boolean(m map[string]any, key, at string) *bool {
	v, present := m[key]
	if !present {
		return nil
	}
	b, ok := v.(bool)
	if !ok {
		d.probs.add(d.file, ptr(at, key), "must be a boolean, not %s", jsonType(v))
		return nil
	}
	return &b
}

// int32 reads an optional integer field that fits in an int32.
func (d decoder) int32(m map[string]any, key, at string) int32 {
	v, present := m[key]
	if !present {
		return 0
	}
	f, ok := number(v)
	if !ok || f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
		d.probs.add(d.file, ptr(at, key), "must be a 32-bit integer, not %s", jsonType(v))
		return 0
	}
	return int32(f)
}

// list reads an optional list field.
func (d decoder) list(m map[string]any, key, at string) []any {
	v, present := m[key]
	if !present {
		return nil
	}
	l, ok := v.([]any)
	if !ok {
		d.probs.add(d.file, ptr(at, key), "must be a list, not %s", jsonType(v))
		return nil
	}
	return l
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// jsonType names v's JSON type for messages ("a string", "null").
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	if _, ok := number(v); ok {
		return "a number"
	}
	return "a value"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
