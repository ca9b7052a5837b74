package jsontree

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	kjson "sigs.k8s.io/json"
)

// reference is encoding/json with HTML escaping off, without the newline.
func reference(t testing.TB, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func decode(t testing.TB, doc string) (any, bool) {
	var v any
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(doc), &v); err != nil {
		return nil, false
	}
	return v, true
}

var cases = []string{
	`null`, `true`, `false`, `0`, `-12`, `9223372036854775807`, `1.5`, `1e-7`, `1e21`, `123456789012345678901234567890`,
	`""`, `"plain"`, `"quote \" and \\ backslash"`, `"tab\tnew\nline\u0001"`, `"<html> & 'apos'"`,
	`"héllo wörld 日本"`, `"line\u2028sep\u2029"`, `"\ud800"`,
	`{}`, `[]`, `{"b":1,"a":[1,"x",null,{"z":{},"y":[]}],"A":true,"é":"k","":0}`,
	`{"metadata":{"name":"w1","labels":{"app":"x"}},"spec":{"replicas":3,"ratio":0.25}}`,
}

func TestAppendMatchesEncodingJSON(t *testing.T) {
	for _, doc := range cases {
		v, ok := decode(t, doc)
		if !ok {
			t.Fatalf("case %s does not decode", doc)
		}
		got, err := Append(nil, v)
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if want := reference(t, v); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", doc, got, want)
		}
	}
}

func TestAppendInvalidUTF8AndOtherTypes(t *testing.T) {
	for _, v := range []any{"bad \xff byte", map[string]any{"k\xfe": int32(7)}, []any{uint8(3), 2.5}, json.Number("12")} {
		got, err := Append([]byte("prefix:"), v)
		if err != nil {
			t.Fatal(err)
		}
		if want := append([]byte("prefix:"), reference(t, v)...); !bytes.Equal(got, want) {
			t.Errorf("%#v:\n got %s\nwant %s", v, got, want)
		}
	}
}

func TestAppendRefusesNaN(t *testing.T) {
	if _, err := Append(nil, map[string]any{"x": math.NaN()}); err == nil {
		t.Error("NaN encoded; encoding/json refuses it")
	}
}

func FuzzAppend(f *testing.F) {
	for _, doc := range cases {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		v, ok := decode(t, doc)
		if !ok {
			return
		}
		got, err := Append(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		if want := reference(t, v); !bytes.Equal(got, want) {
			t.Errorf("%q:\n got %s\nwant %s", doc, got, want)
		}
	})
}

func BenchmarkAppend(b *testing.B) {
	doc := `{"apiVersion":"bench.example.com/v1","kind":"Event","metadata":{"name":"e1","namespace":"default","uid":"6a1e4d3c","creationTimestamp":"2026-11-21T10:19:21Z","managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","time":"2026-11-21T10:19:21Z","fieldsType":"FieldsV1","fieldsV1":{"f:count":{},"f:reason":{}}}]},` +
		`"involvedObject":{"apiVersion":"shop.example.com/v1","kind":"Widget","namespace":"default","name":"w1","uid":"6a1e4d3c-93f4","resourceVersion":"12345"},` +
		`"reason":"Scaled","message":"scaled the widget from 3 to 5 replicas because the queue is 120 items long","count":1,"type":"Normal"}`
	v, _ := decode(b, doc)
	b.Run("jsontree", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 1024)
		for b.Loop() {
			if _, err := Append(buf[:0], v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			reference(b, v)
		}
	})
}
