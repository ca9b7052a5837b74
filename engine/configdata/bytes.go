package configdata

import (
	"bytes"
	"encoding/base64"
	"maps"
	"slices"
)

// canonicalBytes checks that every string value of the map obj[name] is
// base64, as kube's decoding of a []byte field does, and rewrites it in
// canonical form. The first bad value in key order is the error (kube's
// clients send keys sorted). A value that is not a string, or a field
// that is not a map, is left to the schema. It returns the map, nil when
// there is none, and drops an empty one, as kube's encoding does.
func canonicalBytes(obj map[string]any, name string) (map[string]any, error) {
	m, ok := obj[name].(map[string]any)
	if !ok {
		return nil, nil
	}
	if len(m) == 0 {
		delete(obj, name)
		return nil, nil
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s, ok := m[k].(string)
		if !ok {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, err
		}
		m[k] = base64.StdEncoding.EncodeToString(b)
	}
	return m, nil
}

// sameBytes reports whether two byte maps hold the same keys and values;
// nil and empty are the same, as in kube's storage, which keeps neither.
func sameBytes(a, b map[string][]byte) bool {
	return maps.EqualFunc(a, b, bytes.Equal)
}
