package structural

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// benchSchema and benchObject: a CRD-like schema with 20 string spec fields
// (some with maxLength, pattern and enum) and a ~1.7 KB object.
func benchSchema() string {
	var props []string
	for i := 0; i < 20; i++ {
		extra := ""
		switch i % 4 {
		case 1:
			extra = `,"maxLength":128`
		case 2:
			extra = `,"pattern":"^[a-z0-9-]+$"`
		case 3:
			extra = `,"minLength":1`
		}
		props = append(props, fmt.Sprintf(`"field%02d":{"type":"string"%s}`, i, extra))
	}
	props = append(props, `"mode":{"type":"string","enum":["fast","safe"],"default":"safe"}`)
	return `{"type":"object","properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},
		"metadata":{"type":"object"},"spec":{"type":"object","required":["field00"],"properties":{` +
		strings.Join(props, ",") + `}},"status":{"type":"object","properties":{"phase":{"type":"string"}}}}}`
}

func benchObject() string {
	var fields []string
	for i := 0; i < 20; i++ {
		fields = append(fields, fmt.Sprintf(`"field%02d":"value-%02d-abcdefghijklmnopqrstuvwxyz-0123456789-abcdefghij"`, i, i))
	}
	return `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"bench","namespace":"default",
		"labels":{"app":"bench","tier":"backend"},"annotations":{"note":"a benchmark object"}},
		"spec":{"mode":"fast",` + strings.Join(fields, ",") + `},"status":{"phase":"Ready"}}`
}

func TestBenchObjectIsValid(t *testing.T) {
	s := mustCompile(t, benchSchema())
	obj := object(t, benchObject())
	if n := len(benchObject()); n < 1500 || n > 1900 {
		t.Errorf("bench object is %d bytes, want ~1.7 KB", n)
	}
	if removed := s.Prune(obj); len(removed) > 0 {
		t.Errorf("pruned %v", removed)
	}
	if errs := s.Validate(obj); len(errs) > 0 {
		t.Errorf("invalid: %v", errs)
	}
}

func BenchmarkValidate(b *testing.B) {
	s := mustCompile(b, benchSchema())
	obj := object(b, benchObject())
	b.ReportAllocs()
	for b.Loop() {
		if errs := s.Validate(obj); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

func BenchmarkPrune(b *testing.B) {
	s := mustCompile(b, benchSchema())
	obj := object(b, benchObject())
	b.ReportAllocs()
	for b.Loop() {
		if removed := s.Prune(obj); len(removed) > 0 {
			b.Fatal(removed)
		}
	}
}

func BenchmarkDefault(b *testing.B) {
	s := mustCompile(b, benchSchema())
	obj := object(b, benchObject())
	b.ReportAllocs()
	for b.Loop() {
		s.Default(obj)
	}
}

func BenchmarkCompile(b *testing.B) {
	src := benchSchema()
	b.ReportAllocs()
	for b.Loop() {
		compileJSON(b, src)
	}
}

// BenchmarkNeedsDefaults is what a read of a stored object that has all
// its defaults costs (engine.defaultStored): the raw bytes are walked,
// not decoded.
func BenchmarkNeedsDefaults(b *testing.B) {
	s := mustCompile(b, benchSchema())
	obj := object(b, benchObject())
	s.Default(obj)
	raw, err := json.Marshal(obj)
	if err != nil {
		b.Fatal(err)
	}
	if !s.root.defaultBelow {
		b.Fatal("the bench schema has no default")
	}
	b.ReportAllocs()
	for b.Loop() {
		if s.NeedsDefaults(raw) {
			b.Fatal("a defaulted object needs defaults")
		}
	}
}
