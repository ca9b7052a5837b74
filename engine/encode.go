package engine

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/specd-io/specd/engine/internal/jsontree"
)

// appendWithResourceVersion appends obj to dst with
// metadata.resourceVersion set to rev. Stored objects never carry a
// resourceVersion, so it is inserted as the first metadata field without
// decoding or copying the object more than once.
func appendWithResourceVersion(dst, obj []byte, rev int64) ([]byte, error) {
	if len(obj) == 0 {
		return nil, fmt.Errorf("engine: empty object")
	}
	md := gjson.GetBytes(obj, "metadata")
	if !md.IsObject() || md.Index <= 0 {
		out, err := sjson.SetBytes(obj, "metadata.resourceVersion", strconv.FormatInt(rev, 10))
		if err != nil {
			return nil, fmt.Errorf("engine: set resourceVersion: %w", err)
		}
		return append(dst, out...), nil
	}
	open := md.Index + 1 // just after the metadata object's '{'
	dst = append(dst, obj[:open]...)
	dst = append(dst, `"resourceVersion":"`...)
	dst = strconv.AppendInt(dst, rev, 10)
	dst = append(dst, '"')
	if !emptyObject(md.Raw) {
		dst = append(dst, ',')
	}
	return append(dst, obj[open:]...), nil
}

// encode is the one encoding of a prepared object; sizeHint is the size of
// the body it came from.
func encode(obj map[string]any, sizeHint int) ([]byte, error) {
	out, err := jsontree.Append(make([]byte, 0, sizeHint+256), obj)
	if err != nil {
		return nil, fmt.Errorf("engine: encode object: %w", err)
	}
	return out, nil
}

// emptyObject reports whether raw, a JSON object, has no members.
func emptyObject(raw string) bool {
	for i := 1; i < len(raw); i++ {
		switch raw[i] {
		case ' ', '\t', '\n', '\r':
		case '}':
			return true
		default:
			return false
		}
	}
	return true
}

// served is obj with its resourceVersion, as every answer carries it.
func served(obj []byte, rev int64) ([]byte, error) {
	out, err := appendWithResourceVersion(make([]byte, 0, len(obj)+32), obj, rev)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always encodes
	return append(b, q...)
}
