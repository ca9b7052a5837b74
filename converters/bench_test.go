package converters

import (
	"encoding/json"
	"strings"
	"testing"
)

// benchV1 and benchV2: the seed's Frobber as a client sends it (~400 bytes),
// in v1 and in the storage version v2.
var (
	benchV1 = `{"apiVersion":"frobs.example.com/v1","kind":"Frobber","metadata":{"name":"bench","namespace":"default",` +
		`"uid":"2c7e3c3e-6a8e-4c1e-9d1e-0a7c6b1f2e3d","resourceVersion":"12345","generation":3,` +
		`"creationTimestamp":"2026-01-01T00:00:00Z","labels":{"app":"bench","tier":"backend"}},` +
		`"spec":{"height":10,"width":20,"param":"alpha","mode":"fast","command":"run --fast now","legacy":false},` +
		`"status":{"phase":"Ready"}}`
	benchV2 = `{"apiVersion":"frobs.example.com/v2","kind":"Frobber","metadata":{"name":"bench","namespace":"default",` +
		`"uid":"2c7e3c3e-6a8e-4c1e-9d1e-0a7c6b1f2e3d","resourceVersion":"12345","generation":3,` +
		`"creationTimestamp":"2026-01-01T00:00:00Z","labels":{"app":"bench","tier":"backend"}},` +
		`"spec":{"heightInInches":10,"widthInInches":20,"params":["alpha"],"mode":"Fast","args":["run","--fast","now"],"unit":"inches"},` +
		`"status":{"phase":"Ready"}}`
	// benchV2Extra has what v1 cannot hold: bookkeeping on the way.
	benchV2Extra = `{"apiVersion":"frobs.example.com/v2","kind":"Frobber","metadata":{"name":"bench","namespace":"default",` +
		`"uid":"2c7e3c3e-6a8e-4c1e-9d1e-0a7c6b1f2e3d","resourceVersion":"12345","generation":3,` +
		`"creationTimestamp":"2026-01-01T00:00:00Z","labels":{"app":"bench","tier":"backend"}},` +
		`"spec":{"heightInInches":10,"widthInInches":20,"params":["alpha","beta"],"mode":"Fast","args":["run","--fast","now"],"unit":"inches","color":"red"},` +
		`"status":{"phase":"Ready"}}`
)

func BenchmarkConvert(b *testing.B) {
	s := frobberSet(b)
	cases := []struct {
		name, in, to string
	}{
		{"v1-to-hub", benchV1, "v2"},
		{"hub-to-v1", benchV2, "v1"},
		{"hub-to-v1-bookkeeping", benchV2Extra, "v1"},
		{"hub-to-rule-less-v3", benchV2, "v3"},
		{"v1-to-v3", benchV1, "v3"},
	}
	for _, c := range cases {
		in, to := []byte(c.in), testGroup+"/"+c.to
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if _, err := s.Convert(in, to); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("none", func(b *testing.B) {
		in := []byte(benchV2)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := (None{}).Convert(in, testGroup+"/v1"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestBenchObjectsRoundTrip(t *testing.T) {
	s := frobberSet(t)
	got, err := s.Convert([]byte(benchV1), testGroup+"/v2")
	if err != nil {
		t.Fatal(err)
	}
	mustEqualJSON(t, "bench v1 -> v2", string(got), benchV2)
	r := s.Rules(testGroup, "Frobber", "v1")
	for _, o := range []string{benchV1, benchV2, benchV2Extra} {
		if p, err := r.RoundTrip([]byte(o)); err != nil {
			t.Errorf("at %q: %v", p, err)
		}
	}
}

// BenchmarkDecodeBaseline is what a conversion through a decoded tree would
// pay before doing anything: unmarshal and marshal the object.
func BenchmarkDecodeBaseline(b *testing.B) {
	in := []byte(benchV1)
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		if err := json.Unmarshal(in, &m); err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkConvertElements: rules inside the elements of a list of 10
// ports (FuzzElementRoundTrip's resource), with and without what v1
// cannot hold of each element.
func BenchmarkConvertElements(b *testing.B) {
	r := portsResource(b)
	var plain, extra []string
	for i := range 10 {
		n := itoa(i)
		plain = append(plain, `{"name":"p`+n+`","number":`+n+`,"proto":"TCP","hosts":["h`+n+`"],"x":`+n+`}`)
		extra = append(extra, `{"name":"p`+n+`","number":`+n+`,"proto":"TCP","hosts":["h`+n+`","i"],"x":`+n+`,"app":"http"}`)
	}
	for name, ports := range map[string][]string{"hub-to-v1": plain, "hub-to-v1-bookkeeping": extra} {
		in := []byte(obj("v2", `,"spec":{"ports":[`+strings.Join(ports, ",")+`]}`))
		back, err := r.FromHub(in, testGroup+"/v1")
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if _, err := r.FromHub(in, testGroup+"/v1"); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(strings.Replace(name, "hub-to-v1", "v1-to-hub", 1), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(back)))
			for b.Loop() {
				if _, err := r.ToHub(back, testGroup+"/v2"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
