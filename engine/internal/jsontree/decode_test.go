package jsontree

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// kubeDecode decodes as the engine's fallback does.
func kubeDecode(data []byte) (map[string]any, bool) {
	var obj map[string]any
	strict, err := kjson.UnmarshalStrict(data, &obj, kjson.DisallowDuplicateFields)
	return obj, err == nil && len(strict) == 0 && obj != nil
}

// agrees fails t when DecodeObject handles data but decodes it otherwise
// than sigs.k8s.io/json.
func agrees(t *testing.T, data []byte) bool {
	t.Helper()
	got, ok := DecodeObject(data)
	if !ok {
		return false
	}
	want, wantOK := kubeDecode(data)
	if !wantOK {
		t.Fatalf("DecodeObject took %q, which sigs.k8s.io/json refuses or reports", data)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("DecodeObject(%q)\n got %#v\nwant %#v", data, got, want)
	}
	return true
}

var decodeCases = []string{
	`{}`, ` { } `, `{"a":1}`, `{"a":-0}`, `{"a":1.0}`, `{"a":1e3}`, `{"a":-12.5E-3}`,
	`{"a":9223372036854775807}`, `{"a":9223372036854775808}`, `{"a":-9223372036854775809}`,
	`{"a":"x","b":true,"c":false,"d":null,"e":[],"f":{},"g":[1,"2",[3],{"h":4}]}`,
	`{"a":"\u00e9\n\"\\\/"}`, `{"a":"\ud83d\ude00"}`, `{"a":"\ud83d"}`, `{"é":"ü"}`,
	"{\"a\":\"\xff\"}", `{"a":1,"a":2}`, `{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`,
	`{"a":tru}`, `{"a":1,}`, `{"a":[1,]}`, `{"a" 1}`, `{a:1}`, `{"a":1} x`, `[1]`, `null`, ``,
	"{\"a\":\"\t\"}", `{"a":1e400}`, `{"a":"x"`, `{"a":[1,2}`, `{"a":{"b":1]}`,
}

func TestDecodeObjectAgrees(t *testing.T) {
	handled := 0
	for _, c := range decodeCases {
		if agrees(t, []byte(c)) {
			handled++
		}
	}
	if handled < 15 {
		t.Errorf("DecodeObject handled %d of %d cases; the well-formed ones should be its", handled, len(decodeCases))
	}
}

// TestDecodeObjectTakesRealObjects: the corpus's example objects, real
// custom resources, are decoded here, not left to the fallback.
func TestDecodeObjectTakesRealObjects(t *testing.T) {
	files, _ := filepath.Glob("../../../testdata/crds/*/examples/*.yaml")
	if len(files) < 50 {
		t.Fatalf("found %d example files", len(files))
	}
	for _, f := range files {
		y, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		data, err := yaml.YAMLToJSON(y)
		if err != nil || len(data) == 0 || data[0] != '{' {
			continue // several documents, or not an object
		}
		if !agrees(t, data) {
			t.Errorf("%s: left to the fallback", f)
		}
	}
}

func FuzzDecodeObject(f *testing.F) {
	for _, c := range decodeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) { agrees(t, data) })
}

func BenchmarkDecodeObject(b *testing.B) {
	data := []byte(`{"apiVersion":"bench.example.com/v1","kind":"Event","metadata":{"name":"e1","namespace":"default","labels":{"a":"b"}},` +
		`"involvedObject":{"apiVersion":"shop.example.com/v1","kind":"Widget","namespace":"default","name":"w1","uid":"6a1e4d3c-93f4-4b59-8d2a-1f0a6c1d2e3f","resourceVersion":"12345"},` +
		`"reason":"Scaled","message":"scaled the widget from 3 to 5 replicas because the queue is 120 items long",` +
		`"source":{"component":"fleet-controller"},"firstTimestamp":"2026-11-21T10:19:21Z","count":1,"ratio":0.5,"eventTime":null}`)
	b.Run("jsontree", func(b *testing.B) {
		for b.Loop() {
			if _, ok := DecodeObject(data); !ok {
				b.Fatal("not handled")
			}
		}
	})
	b.Run("sigs.k8s.io-json", func(b *testing.B) {
		for b.Loop() {
			if _, ok := kubeDecode(data); !ok {
				b.Fatal("refused")
			}
		}
	})
}
