package converters

import (
	"encoding/json"
	"strconv"
	"testing"
)

// FuzzFrobberRoundTrip builds Frobbers of v1 and v2 from fuzzed field
// values and checks that v1 -> v2 -> v1 and v2 -> v1 -> v2 are exact.
func FuzzFrobberRoundTrip(f *testing.F) {
	f.Add(int64(10), "a", "b", "fast", "run it", "red", uint8(0))
	f.Add(int64(0), "", "", "Fast", "", "", uint8(0xff))
	f.Add(int64(-3), "a b", "c,d", "safe", "  two  spaces ", "inches", uint8(0x55))
	f.Add(int64(1<<40), "\"q\"", "\u00e9", "slow", "x", "cm", uint8(0xaa))
	_, r := frobber(f)
	f.Fuzz(func(t *testing.T, n int64, s1, s2, mode, command, color string, bits uint8) {
		v1, v2 := fuzzFrobbers(n, s1, s2, mode, command, color, bits)
		for _, o := range []string{v1, v2} {
			if p, err := r.RoundTrip([]byte(o)); err != nil {
				t.Fatalf("%s: at %q: %v", o, p, err)
			}
		}
	})
}

// fuzzFrobbers builds a v1 and a v2 object; each bit of bits switches a
// field on.
func fuzzFrobbers(n int64, s1, s2, mode, command, color string, bits uint8) (string, string) {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	num := strconv.FormatInt(n, 10)
	var spec1, spec2 []string
	add := func(bit uint8, one, two string) {
		if bits&bit != 0 {
			if one != "" {
				spec1 = append(spec1, one)
			}
			if two != "" {
				spec2 = append(spec2, two)
			}
		}
	}
	add(1, `"height":`+num, `"heightInInches":`+num)
	add(2, `"param":`+q(s1), `"params":[`+q(s1)+`,`+q(s2)+`]`)
	add(4, `"mode":`+q(mode), `"mode":`+q(mode))
	add(8, `"command":`+q(command), `"args":[`+q(command)+`,`+q(s2)+`]`)
	add(16, `"legacy":`+strconv.FormatBool(n%2 == 0), `"unit":`+q(color))
	add(32, `"width":null`, `"color":`+q(color))
	add(64, `"bogus":{"x":[`+num+`]}`, `"params":[]`)
	spec := func(fields []string) string {
		out := "{"
		seen := map[string]bool{}
		for i, f := range fields {
			k := f[:strIndex(f, ':')]
			if seen[k] {
				continue
			}
			seen[k] = true
			if i > 0 && out != "{" {
				out += ","
			}
			out += f
		}
		return out + "}"
	}
	status := ""
	if bits&128 != 0 {
		status = `,"status":{"phase":` + q(s1) + `}`
	}
	return obj("v1", `,"spec":`+spec(spec1)+status), obj("v2", `,"spec":`+spec(spec2)+status)
}

func strIndex(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return len(s)
}

// FuzzRoundTripJSON puts arbitrary JSON in the spec and status of a
// Frobber of each version: whatever it holds, valid for the schema or not,
// the round trips are exact.
func FuzzRoundTripJSON(f *testing.F) {
	f.Add([]byte(`{"height":1,"param":"a","mode":"fast","command":"a b","legacy":true}`), []byte(`{"phase":"x"}`))
	f.Add([]byte(`{"heightInInches":1,"params":["a","b"],"mode":"Safe","args":["a b"],"unit":"cm","color":"red"}`), []byte(`{"conditions":[{"a":1}]}`))
	f.Add([]byte(`{"params":[],"args":[],"param":["x"],"command":3,"mode":null}`), []byte(`null`))
	f.Add([]byte(`{"a.b":{"0":{"*":1}},"":2,"params":"x","args":[1,"a"]}`), []byte(`{"conditions":"x"}`))
	f.Add([]byte(`{"unit":"inches","legacy":false,"width":{"nested":[[1]]}}`), []byte(`{}`))
	_, r := frobber(f)
	f.Fuzz(func(t *testing.T, spec, status []byte) {
		var s, st any
		if json.Unmarshal(spec, &s) != nil || json.Unmarshal(status, &st) != nil {
			return
		}
		sb, _ := json.Marshal(s)
		stb, _ := json.Marshal(st)
		for _, v := range []string{"v1", "v2"} {
			o := obj(v, `,"spec":`+string(sb)+`,"status":`+string(stb))
			if p, err := r.RoundTrip([]byte(o)); err != nil {
				t.Fatalf("%s: at %q: %v", o, p, err)
			}
		}
	})
}

// FuzzSetChain converts an object with an arbitrary spec through every
// version and back: v1 -> v2 -> v3 -> v2 -> v1, and v3 -> v1 -> v3. Data
// kept for one version survives the others.
func FuzzSetChain(f *testing.F) {
	f.Add([]byte(`{"height":1,"param":"a","mode":"Fast","legacy":true,"bogus":[1]}`), []byte(`{"mine":"x"}`))
	f.Add([]byte(`{"heightInInches":1,"params":["a","b"],"color":"red","unit":"cm"}`), []byte(`{}`))
	f.Add([]byte(`{"params":[],"command":"a  b","args":["x y"]}`), []byte(`{"specd.io/other":"1"}`))
	s := frobberSet(f)
	f.Fuzz(func(t *testing.T, spec, annotations []byte) {
		var sp any
		var an map[string]string
		if json.Unmarshal(spec, &sp) != nil || json.Unmarshal(annotations, &an) != nil {
			return
		}
		delete(an, Annotation)
		sb, _ := json.Marshal(sp)
		ab, _ := json.Marshal(an)
		for _, chain := range [][]string{{"v1", "v2", "v3", "v2", "v1"}, {"v3", "v1", "v3"}, {"v2", "v1", "v3", "v1", "v2"}} {
			start := `{"apiVersion":"` + testGroup + `/` + chain[0] + `","kind":"Frobber","metadata":{"name":"f","annotations":` + string(ab) + `},"spec":` + string(sb) + `}`
			cur := []byte(start)
			for _, v := range chain[1:] {
				var err error
				if cur, err = s.Convert(cur, testGroup+"/"+v); err != nil {
					t.Fatalf("%v at %s: %v\n%s", chain, v, err, start)
				}
			}
			if d := firstDiff(normal([]byte(start)), normal(cur), nil); d != nil {
				t.Fatalf("%v: %s differs\nstart: %s\n  end: %s", chain, d, start, cur)
			}
		}
	})
}
