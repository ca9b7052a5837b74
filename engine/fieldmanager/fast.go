package fieldmanager

import (
	"bytes"
	"encoding/json"
	"sort"

	"sigs.k8s.io/structured-merge-diff/v6/schema"
)

// createFields is the FieldsV1 of a create that starts from no managed
// fields, written straight from the decoded object: what
// structured-merge-diff computes as Compare(empty, obj).Added, stripped of
// the server's metadata and of status (when the main endpoint does not own
// it), without building typed values, comparisons and sets. ok is false
// for what it does not cover (associative lists of objects, values that do
// not fit the type); the caller then takes the general path. A test checks
// it against the general path.
func (m *Manager) createFields(obj map[string]any, skipStatus bool) (fields []byte, ok bool) {
	sch := m.typ.Schema
	root, found := sch.Resolve(m.typ.TypeRef)
	if !found || root.Map == nil {
		return nil, false
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	n := 0
	for _, k := range sortedKeys(obj) {
		if k == "apiVersion" || k == "kind" || (skipStatus && k == "status") {
			continue
		}
		var b bytes.Buffer
		if k == "metadata" {
			md, isMap := obj[k].(map[string]any)
			if !isMap {
				return nil, false
			}
			if !m.emitMetadata(&b, md, sch, fieldType(root.Map, k)) {
				return nil, false
			}
			if b.Len() == 0 {
				continue
			}
		} else if !emitValue(&b, obj[k], sch, fieldType(root.Map, k)) {
			return nil, false
		}
		if n > 0 {
			buf.WriteByte(',')
		}
		n++
		writeKey(&buf, "f:", k)
		buf.Write(b.Bytes())
	}
	buf.WriteByte('}')
	return buf.Bytes(), true
}

// strippedMeta are the metadata fields no manager owns.
var strippedMeta = map[string]bool{
	"name": true, "namespace": true, "creationTimestamp": true, "selfLink": true, "uid": true,
	"clusterName": true, "generation": true, "managedFields": true, "resourceVersion": true,
}

// emitMetadata writes metadata's fields other than the server's, without
// metadata's own membership; nothing when none is left.
func (m *Manager) emitMetadata(buf *bytes.Buffer, md map[string]any, sch *schema.Schema, tr schema.TypeRef) bool {
	atom, found := sch.Resolve(tr)
	if !found || atom.Map == nil {
		return false
	}
	n := 0
	for _, k := range sortedKeys(md) {
		if strippedMeta[k] {
			continue
		}
		buf.WriteString(map[bool]string{true: "{", false: ","}[n == 0])
		n++
		writeKey(buf, "f:", k)
		if !emitValue(buf, md[k], sch, fieldType(atom.Map, k)) {
			return false
		}
	}
	if n > 0 {
		buf.WriteByte('}')
	}
	return true
}

// emitValue writes the set of one present value: {} for a leaf or an atomic
// value, {".":{},...children} for a granular map or a set.
func emitValue(buf *bytes.Buffer, v any, sch *schema.Schema, tr schema.TypeRef) bool {
	atom, found := sch.Resolve(tr)
	if !found {
		return false
	}
	switch v := v.(type) {
	case map[string]any:
		if atom.Map == nil {
			return false
		}
		if atom.Map.ElementRelationship == schema.Atomic || len(v) == 0 {
			buf.WriteString("{}")
			return true
		}
		buf.WriteString(`{".":{}`)
		ok := true
		eachField(atom.Map, v, func(k string, t schema.TypeRef, known bool) {
			if !ok {
				return
			}
			if !known && atom.Map.ElementType == (schema.TypeRef{}) {
				ok = false
				return
			}
			buf.WriteByte(',')
			writeKey(buf, "f:", k)
			ok = emitValue(buf, v[k], sch, t)
		})
		buf.WriteByte('}')
		return ok
	case []any:
		if atom.List == nil {
			return false
		}
		if atom.List.ElementRelationship != schema.Associative || len(v) == 0 {
			buf.WriteString("{}")
			return true
		}
		return emitSet(buf, v, atom.List)
	default:
		if atom.Scalar == nil {
			return false
		}
		buf.WriteString("{}")
		return true
	}
}

// emitSet writes a set of strings (x-kubernetes-list-type: set); other
// associative lists take the general path.
func emitSet(buf *bytes.Buffer, items []any, l *schema.List) bool {
	if len(l.Keys) > 0 {
		return false
	}
	strs := make([]string, len(items))
	for i, it := range items {
		s, isStr := it.(string)
		if !isStr {
			return false
		}
		strs[i] = s
	}
	sort.Strings(strs)
	buf.WriteString(`{".":{}`)
	for i, s := range strs {
		if i > 0 && strs[i-1] == s {
			return false // duplicates: let the general path decide
		}
		b, err := json.Marshal(s)
		if err != nil {
			return false
		}
		buf.WriteByte(',')
		writeKey(buf, "v:", string(b))
		buf.WriteString("{}")
	}
	buf.WriteByte('}')
	return true
}

func fieldType(m *schema.Map, name string) schema.TypeRef {
	if f, ok := m.FindField(name); ok {
		return f.Type
	}
	return m.ElementType
}

// writeKey writes the JSON object key prefix+k and its colon.
func writeKey(buf *bytes.Buffer, prefix, k string) {
	if plain(k) {
		buf.WriteByte('"')
		buf.WriteString(prefix)
		buf.WriteString(k)
		buf.WriteString(`":`)
		return
	}
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(prefix + k)
	buf.Truncate(buf.Len() - 1) // Encode's newline
	buf.WriteByte(':')
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// plain reports whether k needs no escaping in a JSON string.
func plain(k string) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// eachField calls f for each key of v in sorted order with its type: the
// declared fields in the schema's (sorted) order, merged with the other
// keys, sorted, typed by the element type. Declared fields need no sort.
func eachField(m *schema.Map, v map[string]any, f func(k string, t schema.TypeRef, known bool)) {
	var extra []string
	declared := 0
	for k := range v {
		if _, ok := m.FindField(k); ok {
			declared++
		} else {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	i := 0
	emitExtraBefore := func(name string) {
		for i < len(extra) && (name == "" || extra[i] < name) {
			f(extra[i], m.ElementType, false)
			i++
		}
	}
	if declared > 0 {
		for _, fd := range m.Fields {
			if _, ok := v[fd.Name]; !ok {
				continue
			}
			emitExtraBefore(fd.Name)
			f(fd.Name, fd.Type, true)
		}
	}
	emitExtraBefore("")
}
