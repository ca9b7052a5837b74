package converters

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Annotation is the annotation in which specd keeps, on an object of one
// version, the data of other versions that this version cannot hold. Its
// value is JSON: an object with one entry per version the data belongs to.
const Annotation = "specd.io/conversion-data"

// ErrBookkeeping is returned (wrapped) when an object carries an Annotation
// value that specd did not write.
var ErrBookkeeping = errors.New("converters: malformed " + Annotation + " annotation")

var annotationPath = newLoc(path{"metadata", "annotations", Annotation})

// entry is the data of one version kept aside while an object is in
// another version.
type entry struct {
	// Fields are values the version itself does not declare, at its paths.
	Fields []keptField `json:"fields,omitempty"`
	// Cut are values the other version has no place for, at their paths in
	// it (restored before the rules run back; elem.go, identity.go).
	Cut []keptField `json:"cut,omitempty"`
	// Elems are what rules inside list elements kept, by rule and element.
	Elems map[string][]elemEntry `json:"elems,omitempty"`
	// Absent are the paths of constant rules whose field was absent.
	Absent []string `json:"absent,omitempty"`
	// Rest are the list elements after the first, by rule.
	Rest map[string]json.RawMessage `json:"rest,omitempty"`
	// Raw are values a rule could not map exactly, by rule: restored while
	// the converted value is still As.
	Raw map[string]rawValue `json:"raw,omitempty"`
}

type keptField struct {
	Path []any           `json:"p"`
	Val  json.RawMessage `json:"v"`
}

type rawValue struct {
	Was json.RawMessage `json:"was"`
	As  json.RawMessage `json:"as"`
}

func (e *entry) empty() bool {
	return len(e.Fields) == 0 && len(e.Cut) == 0 && len(e.Elems) == 0 && len(e.Absent) == 0 && len(e.Rest) == 0 && len(e.Raw) == 0
}

func (e *entry) absent(key string) bool {
	for _, a := range e.Absent {
		if a == key {
			return true
		}
	}
	return false
}

// bookkeeping is the decoded Annotation: entries by version, left encoded
// until needed.
type bookkeeping map[string]json.RawMessage

// takeBookkeeping removes the Annotation from obj and returns its entries;
// obj is returned as is (and bk nil) when it has none.
func takeBookkeeping(obj []byte) ([]byte, bookkeeping, error) {
	r := gjson.GetBytes(obj, annotationPath.get)
	if !r.Exists() {
		return obj, nil, nil
	}
	var bk bookkeeping
	if r.Type != gjson.String || json.Unmarshal([]byte(r.Str), &bk) != nil {
		return nil, nil, ErrBookkeeping
	}
	obj, err := removeAnnotation(obj)
	if err != nil {
		return nil, nil, err
	}
	return obj, bk, nil
}

// annotationKey is the Annotation as it appears in an object's JSON: a
// cheap test that an object may carry it.
var annotationKey = []byte(`"` + Annotation + `"`)

// SplitBookkeeping returns obj without the Annotation (and without
// metadata.annotations when nothing else is in it), and the Annotation's
// value, "" when obj has none. obj itself is never modified: an object
// without the Annotation is returned as is. This is what the engine shows
// a client, who never sees the bookkeeping; the value goes back on the
// object when the client writes it (see the engine's bookkeeping.go).
func SplitBookkeeping(obj []byte) ([]byte, string, error) {
	if !bytes.Contains(obj, annotationKey) {
		return obj, "", nil
	}
	r := gjson.GetBytes(obj, annotationPath.get)
	if !r.Exists() {
		return obj, "", nil
	}
	if r.Type != gjson.String {
		return nil, "", ErrBookkeeping
	}
	out, err := removeAnnotation(obj)
	if err != nil {
		return nil, "", err
	}
	return out, r.Str, nil
}

// removeAnnotation deletes the Annotation from obj, and metadata.annotations
// when that leaves it empty: an empty map is the same as none to Kubernetes.
func removeAnnotation(obj []byte) ([]byte, error) {
	obj, err := deleteAt(obj, annotationPath)
	if err != nil {
		return nil, err
	}
	if a := gjson.GetBytes(obj, "metadata.annotations"); a.IsObject() && isEmptyObject(a) {
		if obj, err = deleteAt(obj, annotationPath.up); err != nil {
			return nil, err
		}
	}
	return obj, nil
}

// take removes and decodes the entry of version v.
func (bk bookkeeping) take(v string) (*entry, error) {
	e := &entry{}
	raw, ok := bk[v]
	if !ok {
		return e, nil
	}
	delete(bk, v)
	if err := json.Unmarshal(raw, e); err != nil {
		return nil, fmt.Errorf("%w: version %s: %v", ErrBookkeeping, v, err)
	}
	return e, nil
}

// putBookkeeping writes bk into obj's Annotation; nothing when bk is empty.
func putBookkeeping(obj []byte, bk bookkeeping) ([]byte, error) {
	if len(bk) == 0 {
		return obj, nil
	}
	b, err := marshal(bk)
	if err != nil {
		return nil, fmt.Errorf("converters: encode %s: %w", Annotation, err)
	}
	return setAt(obj, annotationPath, mustQuote(string(b)))
}

// mustQuote is s as a JSON string.
func mustQuote(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			b, _ := marshal(s)
			return string(b)
		}
	}
	return `"` + s + `"`
}

// marshal is json.Marshal without the escaping of <, > and &.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func isEmptyObject(r gjson.Result) bool {
	empty := true
	r.ForEach(func(_, _ gjson.Result) bool { empty = false; return false })
	return empty
}

func deletePath(obj []byte, p path) ([]byte, error) {
	out, err := sjson.DeleteBytes(obj, p.set())
	if err != nil {
		return nil, fmt.Errorf("converters: delete %s: %w", p, err)
	}
	return out, nil
}

func setRaw(obj []byte, p path, raw string) ([]byte, error) {
	out, err := sjson.SetRawBytes(obj, p.set(), []byte(raw))
	if err != nil {
		return nil, fmt.Errorf("converters: set %s: %w", p, err)
	}
	return out, nil
}

func marshalEntry(e *entry) (json.RawMessage, error) {
	b, err := marshal(e)
	if err != nil {
		return nil, fmt.Errorf("converters: encode %s: %w", Annotation, err)
	}
	return b, nil
}

func deleteAt(obj []byte, l *loc) ([]byte, error) {
	out, err := sjson.DeleteBytes(obj, l.set)
	if err != nil {
		return nil, fmt.Errorf("converters: delete %s: %w", l.p, err)
	}
	return out, nil
}

func setAt(obj []byte, l *loc, raw string) ([]byte, error) {
	out, err := sjson.SetRawBytes(obj, l.set, []byte(raw))
	if err != nil {
		return nil, fmt.Errorf("converters: set %s: %w", l.p, err)
	}
	return out, nil
}
