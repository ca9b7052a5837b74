package structural

import (
	"sync"
	"testing"

	kjson "sigs.k8s.io/json"
)

const fuzzSchema = `{"type":"object","properties":{"spec":{"type":"object","required":["n"],"properties":{
	"n":{"type":"integer","minimum":0,"maximum":10,"multipleOf":2,"default":2},
	"s":{"type":"string","maxLength":5,"pattern":"^[a-z]*$","format":"hostname","enum":["a","bb"]},
	"p":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]},
	"set":{"type":"array","x-kubernetes-list-type":"set","uniqueItems":true,"maxItems":3,"items":{"type":"string"}},
	"m":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k","j"],
		"items":{"type":"object","properties":{"k":{"type":"string"},"j":{"type":"integer","default":1}}}},
	"labels":{"type":"object","additionalProperties":{"type":"string","nullable":true},"maxProperties":2},
	"free":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
	"emb":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true},
	"one":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},
		"oneOf":[{"required":["a"]},{"required":["b"]}],"not":{"required":["c"]}}}}}}`

// Any JSON object goes through Prune, Default and Validate without panicking.
func FuzzApply(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"spec":null}`, `{"spec":[]}`, `{"spec":{"n":"x","s":1,"p":true,"set":{},"m":[1,null,{}],"labels":[]}}`,
		`{"spec":{"n":3,"s":"ABCDEFG","set":["a","a","b","c"],"m":[{"k":"x"},{"k":"x"}],"labels":{"a":null,"b":"1","c":2}}}`,
		`{"spec":{"emb":{"apiVersion":1,"kind":[],"metadata":"x"},"one":{"a":"1","b":"2","c":"3"},"free":{"x":[{"y":null}]}}}`,
		`{"spec":{"n":1e300,"p":1.5,"m":[{"j":null},{"j":1}]}}`,
	} {
		f.Add(seed)
	}
	s := mustCompile(f, fuzzSchema)
	f.Fuzz(func(t *testing.T, in string) {
		var obj map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(in), &obj); err != nil || obj == nil {
			return
		}
		s.Prune(obj)
		s.Default(obj)
		s.Validate(obj)
	})
}

// A Schema is used by many requests at once.
func TestConcurrentUse(t *testing.T) {
	s := mustCompile(t, fuzzSchema)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				obj := object(t, `{"spec":{"n":3,"s":"h-1","p":"50%","set":["a"],"m":[{"k":"x"}],"labels":{"a":"b"},
					"emb":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","x":1}},"one":{"a":"1"}}}`)
				s.Prune(obj)
				s.Default(obj)
				if errs := s.Validate(obj); len(errs) != 3 {
					t.Errorf("got %v", errs)
					return
				}
			}
		}()
	}
	wg.Wait()
}
