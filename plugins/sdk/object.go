package sdk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Object is one API object as JSON. Paths are dotted, as "spec.replicas" or
// "spec.ports.0.name"; a key that holds a dot, such as a label key, is
// written with Path: Path("metadata", "labels", "example.com/app").
type Object struct {
	raw []byte
}

// ParseObject wraps JSON that must be an object.
func ParseObject(data []byte) (*Object, error) {
	t := bytes.TrimSpace(data)
	if len(t) == 0 || t[0] != '{' || !gjson.ValidBytes(t) {
		return nil, fmt.Errorf("not a JSON object: %.60q", data)
	}
	return &Object{raw: t}, nil
}

// NewObject is an empty object of apiVersion and kind, named name in
// namespace ("" for a cluster-scoped kind).
func NewObject(apiVersion, kind, namespace, name string) *Object {
	meta := map[string]string{"name": name}
	if namespace != "" {
		meta["namespace"] = namespace
	}
	o, _ := ObjectFrom(map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": meta})
	return o
}

// ObjectFrom encodes v (a struct or map) with encoding/json into an Object.
func ObjectFrom(v any) (*Object, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode object: %w", err)
	}
	return ParseObject(b)
}

// JSON is the object's JSON. It is the Object's own buffer: do not change
// it.
func (o *Object) JSON() []byte { return o.raw }

// Exists reports whether path is set, even to null.
func (o *Object) Exists(path string) bool { return gjson.GetBytes(o.raw, path).Exists() }

// String is the string at path, "" if absent or not a string.
func (o *Object) String(path string) string {
	r := gjson.GetBytes(o.raw, path)
	if r.Type != gjson.String {
		return ""
	}
	return r.Str
}

// Int is the number at path as an integer, 0 if absent or not a number.
func (o *Object) Int(path string) int64 {
	r := gjson.GetBytes(o.raw, path)
	if r.Type != gjson.Number {
		return 0
	}
	return r.Int()
}

// Float is the number at path, 0 if absent or not a number.
func (o *Object) Float(path string) float64 {
	r := gjson.GetBytes(o.raw, path)
	if r.Type != gjson.Number {
		return 0
	}
	return r.Num
}

// Bool is the boolean at path, false if absent or not a boolean.
func (o *Object) Bool(path string) bool {
	r := gjson.GetBytes(o.raw, path)
	return r.Type == gjson.True
}

// Raw is the JSON at path, nil if absent.
func (o *Object) Raw(path string) []byte {
	r := gjson.GetBytes(o.raw, path)
	if !r.Exists() {
		return nil
	}
	return []byte(r.Raw)
}

// Decode decodes the value at path into v with encoding/json; "" decodes
// the whole object. An absent path leaves v as it is.
func (o *Object) Decode(path string, v any) error {
	raw := o.raw
	if path != "" {
		if raw = o.Raw(path); raw == nil {
			return nil
		}
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("decode %s: %w", displayPath(path), err)
	}
	return nil
}

// Set sets path to v (encoded with encoding/json), creating the objects on
// the way.
func (o *Object) Set(path string, v any) error {
	b, err := sjson.SetBytes(o.raw, path, v)
	if err != nil {
		return fmt.Errorf("set %s: %w", displayPath(path), err)
	}
	o.raw = b
	return nil
}

// SetRaw sets path to the JSON value raw.
func (o *Object) SetRaw(path string, raw []byte) error {
	if !json.Valid(raw) {
		return fmt.Errorf("set %s: not JSON: %.60q", displayPath(path), raw)
	}
	b, err := sjson.SetRawBytes(o.raw, path, raw)
	if err != nil {
		return fmt.Errorf("set %s: %w", displayPath(path), err)
	}
	o.raw = b
	return nil
}

// Delete removes path; an absent path is not an error.
func (o *Object) Delete(path string) error {
	b, err := sjson.DeleteBytes(o.raw, path)
	if err != nil {
		return fmt.Errorf("delete %s: %w", displayPath(path), err)
	}
	o.raw = b
	return nil
}

// DeepCopy is an independent copy of the object.
func (o *Object) DeepCopy() *Object {
	return &Object{raw: bytes.Clone(o.raw)}
}

// Path joins keys into a path, escaping the characters that paths give a
// meaning to, so that Path("metadata", "labels", "example.com/app") names
// the label "example.com/app".
func Path(keys ...string) string {
	escaped := make([]string, len(keys))
	for i, k := range keys {
		var b strings.Builder
		for _, r := range k {
			if strings.ContainsRune(`.*?|#@\!=<>%:`, r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		escaped[i] = b.String()
	}
	return strings.Join(escaped, ".")
}

func displayPath(path string) string {
	if path == "" {
		return "object"
	}
	return path
}
