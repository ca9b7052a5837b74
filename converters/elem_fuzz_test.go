package converters

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// The resource of the element fuzz targets: a map list of ports whose
// elements differ between v1 and the hub v2 (a renamed field, an enum, a
// scalar that becomes a list, a flattened object, a hub-only field), and
// a list of groups of ports.
const (
	portsItemV1 = `{type: object, properties: {name: {type: string}, port: {type: integer}, proto: {type: string},
		host: {type: string}, target: {type: object, properties: {x: {type: integer}}}}}`
	portsItemV2 = `{type: object, properties: {name: {type: string}, number: {type: integer}, proto: {type: string},
		hosts: {type: array, items: {type: string}}, x: {type: integer}, app: {type: string}}}`
	elemRulesYAML = `
- rename: {from: "spec.ports[*].port", to: "spec.ports[*].number"}
- enum: {from: "spec.ports[*].proto", values: {tcp: TCP, udp: UDP}}
- toList: {from: "spec.ports[*].host", to: "spec.ports[*].hosts"}
- flatten: {from: "spec.ports[*].target", to: "spec.ports[*]"}
- rename: {from: "spec.groups[*].members[*].port", to: "spec.groups[*].members[*].number"}
`
)

func portsResource(t testing.TB) *Rules {
	t.Helper()
	list := func(item string) string {
		return `{type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name], items: ` + item + `}`
	}
	groups := func(item string) string {
		return `{type: array, items: {type: object, properties: {members: {type: array, items: ` + item + `}}}}`
	}
	res := resource(t, "Frobber", "v2", map[string]string{
		"v1": specSchema(`{ports: ` + list(portsItemV1) + `, groups: ` + groups(portsItemV1) + `}`),
		"v2": specSchema(`{ports: ` + list(portsItemV2) + `, groups: ` + groups(portsItemV2) + `}`),
	})
	return compile(t, res, "v1", elemRulesYAML)
}

// FuzzElementRoundTrip puts arbitrary JSON in the lists of an object of
// each version: whatever they hold, v1 -> v2 -> v1 and v2 -> v1 -> v2 are
// exact.
func FuzzElementRoundTrip(f *testing.F) {
	f.Add([]byte(`[{"name":"a","port":1,"proto":"tcp","host":"h","target":{"x":1}}]`), []byte(`[{"members":[{"port":1}]}]`))
	f.Add([]byte(`[{"name":"a","number":1,"proto":"TCP","hosts":["h","i"],"x":2,"app":"http"},{"name":"b","hosts":[]}]`), []byte(`[{"members":[{"number":1,"app":"x"}]},{}]`))
	f.Add([]byte(`[{"name":"a","proto":"TCP"},{"name":"a","proto":"tcp"},1,null,[{"x":1}]]`), []byte(`[1,{"members":"x"},{"members":[null]}]`))
	f.Add([]byte(`[{"target":"x","x":{"y":1},"hosts":"a","host":["b"]},{"target":{"x":1,"y":2}}]`), []byte(`{"members":[]}`))
	f.Add([]byte(`[{"name":{"k":[1,2]},"app":{"deep":[{"a":1}]}}]`), []byte(`[]`))
	r := portsResource(f)
	f.Fuzz(func(t *testing.T, ports, groups []byte) {
		var p, g any
		if json.Unmarshal(ports, &p) != nil || json.Unmarshal(groups, &g) != nil {
			return
		}
		pb, _ := json.Marshal(p)
		gb, _ := json.Marshal(g)
		for _, v := range []string{"v1", "v2"} {
			o := obj(v, `,"spec":{"ports":`+string(pb)+`,"groups":`+string(gb)+`}`)
			if at, err := r.RoundTrip([]byte(o)); err != nil {
				t.Fatalf("%s: at %q: %v", o, at, err)
			}
		}
	})
}

// FuzzElementEdits: a hub object's ports are read in v1 by a client that
// reorders and removes some of them and writes the object back. Every port
// that is left is in the hub exactly as it was (it is known by its name),
// with what v1 cannot hold of it; the removed ones are gone.
func FuzzElementEdits(f *testing.F) {
	f.Add("http", "TCP", "h2", uint8(3), []byte{2, 0, 1})
	f.Add("", "tcp", "", uint8(5), []byte{4, 4, 1, 0})
	f.Add("a b", "SCTP", "x", uint8(8), []byte{7, 6, 5, 4, 3, 2, 1, 0})
	f.Add("\u00e9", "UDP", "\"q\"", uint8(1), []byte{})
	r := portsResource(f)
	f.Fuzz(func(t *testing.T, app, proto, host string, n uint8, order []byte) {
		n %= 12
		q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
		hub := "["
		for i := 0; i < int(n); i++ {
			if i > 0 {
				hub += ","
			}
			e := `{"name":"p` + strconv.Itoa(i) + `","number":` + strconv.Itoa(i)
			if i%2 == 0 {
				e += `,"app":` + q(app+strconv.Itoa(i))
			}
			if i%3 != 1 {
				e += `,"proto":` + q(proto)
			}
			switch i % 4 {
			case 0:
				e += `,"hosts":[` + q(host) + `,` + q(app) + `]`
			case 1:
				e += `,"hosts":[]`
			case 2:
				e += `,"x":` + strconv.Itoa(i)
			}
			hub += e + "}"
		}
		hub += "]"
		v1, err := r.FromHub([]byte(obj("v2", `,"spec":{"ports":`+hub+`}`)), testGroup+"/v1")
		if err != nil {
			t.Fatal(err)
		}
		elems := gjson.GetBytes(v1, "spec.ports").Array()
		var kept []string
		seen := map[int]bool{}
		for _, b := range order {
			if i := int(b); i < len(elems) && !seen[i] {
				seen[i] = true
				kept = append(kept, elems[i].Raw)
			}
		}
		list := "["
		for i, e := range kept {
			if i > 0 {
				list += ","
			}
			list += e
		}
		edited, err := sjson.SetRawBytes(v1, "spec.ports", []byte(list+"]"))
		if err != nil {
			t.Fatal(err)
		}
		back, err := r.ToHub(edited, testGroup+"/v2")
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, e := range gjson.Parse(hub).Array() {
			want[e.Get("name").Str] = e.Raw
		}
		got := gjson.GetBytes(back, "spec.ports").Array()
		if len(got) != len(kept) {
			t.Fatalf("%d ports written, %d stored:\n%s", len(kept), len(got), back)
		}
		for i, e := range got {
			name := gjson.Get(kept[i], "name").Str
			if e.Get("name").Str != name {
				t.Fatalf("port %d is %s, want %s:\n%s", i, e.Get("name").Str, name, back)
			}
			if d := firstDiff(gjson.Parse(want[name]), e, nil); d != nil {
				t.Fatalf("port %s differs at %s: got %s, want %s\nhub: %s\nv1: %s\nwritten: %s\nstored: %s", name, d, e.Raw, want[name], hub, v1, edited, back)
			}
		}
	})
}
