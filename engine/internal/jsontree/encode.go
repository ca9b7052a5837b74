package jsontree

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Append appends the JSON encoding of v to dst.
func Append(dst []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, v), nil
	case string:
		return appendString(dst, v)
	case int64:
		return strconv.AppendInt(dst, v, 10), nil
	case map[string]any:
		return appendObject(dst, v)
	case []any:
		return appendArray(dst, v)
	default:
		return appendOther(dst, v)
	}
}

func appendObject(dst []byte, m map[string]any) ([]byte, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = appendString(dst, k); err != nil {
			return nil, err
		}
		dst = append(dst, ':')
		if dst, err = Append(dst, m[k]); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

func appendArray(dst []byte, items []any) ([]byte, error) {
	dst = append(dst, '[')
	var err error
	for i, item := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = Append(dst, item); err != nil {
			return nil, err
		}
	}
	return append(dst, ']'), nil
}

// appendString writes s as it is when encoding/json would: no control
// character, quote or backslash, and valid UTF-8 without the two line
// separators it escapes.
func appendString(dst []byte, s string) ([]byte, error) {
	multibyte := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c == '"' || c == '\\':
			return appendOther(dst, s)
		case c >= utf8.RuneSelf:
			multibyte = true
		}
	}
	if multibyte && (!utf8.ValidString(s) || strings.ContainsAny(s, "\u2028\u2029")) {
		return appendOther(dst, s)
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"'), nil
}

// appendOther encodes v with encoding/json.
func appendOther(dst []byte, v any) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("jsontree: %w", err)
	}
	// Encode ends with a newline.
	out := buf.Bytes()
	return out[:len(out)-1], nil
}
