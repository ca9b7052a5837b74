package schemas

import (
	"encoding/json"
	"strconv"

	"github.com/getkin/kin-openapi/openapi3"
)

// A document kin-openapi cannot unmarshal (a string where a number belongs,
// an object where a list does) fails as a whole, with a message that names
// a Go field but not where the value is. locateUnmarshalErrors finds each
// such value by unmarshalling reduced copies of the document that keep one
// path from the root, so the author gets a JSON pointer for every one.

// badValue is a value kin-openapi cannot unmarshal.
type badValue struct {
	path    []docStep // from the document root
	message string
}

// docStep is one docStep down a document: a key, or an index into a list.
type docStep struct {
	key    string
	inList bool
}

func (b badValue) pointer() string {
	tokens := make([]string, len(b.path))
	for i, s := range b.path {
		tokens[i] = s.key
	}
	return ptr("", tokens...)
}

// locateUnmarshalErrors returns every bad value in raw.
func locateUnmarshalErrors(raw any) []badValue {
	return locateBad(nil, raw)
}

func locateBad(path []docStep, v any) []badValue {
	err := unmarshalAlong(path, v)
	if err == nil {
		return nil
	}
	var found []badValue
	switch t := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(t) {
			found = append(found, locateBad(down(path, docStep{key: k}), t[k])...)
		}
	case []any:
		for i, item := range t {
			found = append(found, locateBad(down(path, docStep{key: strconv.Itoa(i), inList: true}), item)...)
		}
	}
	if len(found) == 0 {
		// Every part of v unmarshals on its own, so v itself is the wrong
		// shape for its place.
		found = append(found, badValue{path: path, message: cleanLoadError(err)})
	}
	return found
}

// unmarshalAlong unmarshals a document that holds only v, at path; a list
// on the way holds v as its only element.
func unmarshalAlong(path []docStep, v any) error {
	doc := v
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].inList {
			doc = []any{doc}
		} else {
			doc = map[string]any{path[i].key: doc}
		}
	}
	data, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	var t openapi3.T
	return json.Unmarshal(data, &t)
}

// withoutValues returns raw without the bad values, as JSON, so the rest of
// the document can still be loaded and checked.
func withoutValues(raw any, bad []badValue) ([]byte, error) {
	for _, b := range bad {
		raw = remove(raw, b.path)
	}
	return json.Marshal(raw)
}

// remove deletes the value at path; a list element is replaced by an empty
// object so that its siblings keep their indexes.
func remove(v any, path []docStep) any {
	if len(path) == 0 {
		return map[string]any{}
	}
	switch t := v.(type) {
	case map[string]any:
		if len(path) == 1 {
			delete(t, path[0].key)
		} else if child, ok := t[path[0].key]; ok {
			t[path[0].key] = remove(child, path[1:])
		}
	case []any:
		if i, err := strconv.Atoi(path[0].key); err == nil && i < len(t) {
			t[i] = remove(t[i], path[1:])
		}
	}
	return v
}

func down(path []docStep, s docStep) []docStep {
	return append(append(make([]docStep, 0, len(path)+1), path...), s)
}
