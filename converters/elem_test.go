package converters

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/tidwall/sjson"
)

// TestElementRules converts a spoke spec to the hub and back with rules
// that go into list elements ([*]): the hub object is the one wanted, the
// way back gives the spoke object again, and neither carries bookkeeping.
func TestElementRules(t *testing.T) {
	const listV1 = `{type: array, items: {type: object, properties: {portName: {type: string}, port: {type: integer}, proto: {type: string}}}}`
	const listV2 = `{type: array, items: {type: object, properties: {name: {type: string}, port: {type: integer}, proto: {type: string}}}}`
	const portsV1, portsV2 = `{ports: ` + listV1 + `}`, `{ports: ` + listV2 + `}`
	tests := map[string]ruleCase{
		"rename in every element": {
			spoke: portsV1, hub: portsV2,
			rules:     `[{rename: {from: "spec.ports[*].portName", to: "spec.ports[*].name"}}]`,
			spokeSpec: `{"ports":[{"portName":"http","port":80},{"portName":"https","port":443},{"port":1}]}`,
			hubSpec:   `{"ports":[{"name":"http","port":80},{"name":"https","port":443},{"port":1}]}`,
		},
		"enum in every element": {
			spoke: portsV1, hub: portsV1,
			rules:     `[{enum: {from: "spec.ports[*].proto", values: {tcp: TCP, udp: UDP}}}]`,
			spokeSpec: `{"ports":[{"proto":"tcp"},{"proto":"udp"},{"proto":"sctp"}]}`,
			hubSpec:   `{"ports":[{"proto":"TCP"},{"proto":"UDP"},{"proto":"sctp"}]}`,
		},
		"enum of the elements themselves": {
			spoke: `{modes: {type: array, items: {type: string}}}`, hub: `{modes: {type: array, items: {type: string}}}`,
			rules:     `[{enum: {from: "spec.modes[*]", values: {fast: Fast, safe: Safe}}}]`,
			spokeSpec: `{"modes":["fast","safe","fast"]}`, hubSpec: `{"modes":["Fast","Safe","Fast"]}`,
		},
		"nest in every element": {
			spoke:     `{ports: {type: array, items: {type: object, properties: {port: {type: integer}, host: {type: string}, name: {type: string}}}}}`,
			hub:       `{ports: {type: array, items: {type: object, properties: {target: {type: object, properties: {port: {type: integer}, host: {type: string}}}, name: {type: string}}}}}`,
			rules:     `[{nest: {from: "spec.ports[*]", fields: [port, host], to: "spec.ports[*].target"}}]`,
			spokeSpec: `{"ports":[{"name":"a","port":1,"host":"h"},{"name":"b"}]}`,
			hubSpec:   `{"ports":[{"name":"a","target":{"port":1,"host":"h"}},{"name":"b"}]}`,
		},
		"flatten in every element": {
			spoke:     `{ports: {type: array, items: {type: object, properties: {target: {type: object, properties: {port: {type: integer}}}}}}}`,
			hub:       `{ports: {type: array, items: {type: object, properties: {port: {type: integer}}}}}`,
			rules:     `[{flatten: {from: "spec.ports[*].target", to: "spec.ports[*]"}}]`,
			spokeSpec: `{"ports":[{"target":{"port":1}},{"target":{"port":2}}]}`,
			hubSpec:   `{"ports":[{"port":1},{"port":2}]}`,
		},
		"toList in every element": {
			spoke:     `{routes: {type: array, items: {type: object, properties: {host: {type: string}}}}}`,
			hub:       `{routes: {type: array, items: {type: object, properties: {hosts: {type: array, items: {type: string}}}}}}`,
			rules:     `[{toList: {from: "spec.routes[*].host", to: "spec.routes[*].hosts"}}]`,
			spokeSpec: `{"routes":[{"host":"a"},{"host":"b"},{}]}`,
			hubSpec:   `{"routes":[{"hosts":["a"]},{"hosts":["b"]},{}]}`,
		},
		"split in every element": {
			spoke:     `{steps: {type: array, items: {type: object, properties: {command: {type: string}}}}}`,
			hub:       `{steps: {type: array, items: {type: object, properties: {args: {type: array, items: {type: string}}}}}}`,
			rules:     `[{split: {from: "spec.steps[*].command", to: "spec.steps[*].args", separator: " "}}]`,
			spokeSpec: `{"steps":[{"command":"ls -l"},{"command":"true"}]}`,
			hubSpec:   `{"steps":[{"args":["ls","-l"]},{"args":["true"]}]}`,
		},
		"constant in every element": {
			spoke:     `{ports: {type: array, items: {type: object, properties: {port: {type: integer}}}}}`,
			hub:       `{ports: {type: array, items: {type: object, properties: {port: {type: integer}, proto: {type: string}}}}}`,
			rules:     `[{constant: {to: "spec.ports[*].proto", value: TCP}}]`,
			spokeSpec: `{"ports":[{"port":1},{"port":2}]}`,
			hubSpec:   `{"ports":[{"port":1,"proto":"TCP"},{"port":2,"proto":"TCP"}]}`,
		},
		"constant of a spoke-only field in every element": {
			spoke:     `{ports: {type: array, items: {type: object, properties: {port: {type: integer}, legacy: {type: boolean}}}}}`,
			hub:       `{ports: {type: array, items: {type: object, properties: {port: {type: integer}}}}}`,
			rules:     `[{constant: {from: "spec.ports[*].legacy", value: false}}]`,
			spokeSpec: `{"ports":[{"port":1,"legacy":false}]}`,
			hubSpec:   `{"ports":[{"port":1}]}`,
		},
		"lists in lists": {
			spoke:     `{groups: {type: array, items: {type: object, properties: {ports: ` + listV1 + `}}}}`,
			hub:       `{groups: {type: array, items: {type: object, properties: {ports: ` + listV2 + `}}}}`,
			rules:     `[{rename: {from: "spec.groups[*].ports[*].portName", to: "spec.groups[*].ports[*].name"}}]`,
			spokeSpec: `{"groups":[{"ports":[{"portName":"a"},{"portName":"b"}]},{},{"ports":[]},{"ports":[{"portName":"c"}]}]}`,
			hubSpec:   `{"groups":[{"ports":[{"name":"a"},{"name":"b"}]},{},{"ports":[]},{"ports":[{"name":"c"}]}]}`,
		},
		"the list moved first, then its elements": {
			spoke: portsV1, hub: `{endpoints: ` + listV2 + `}`,
			rules:     `[{rename: {from: spec.ports, to: spec.endpoints}}, {rename: {from: "spec.ports[*].portName", to: "spec.endpoints[*].name"}}]`,
			spokeSpec: `{"ports":[{"portName":"a","port":1}]}`,
			hubSpec:   `{"endpoints":[{"name":"a","port":1}]}`,
		},
		"the elements first, then the list moved": {
			spoke: portsV1, hub: `{endpoints: ` + listV2 + `}`,
			rules:     `[{rename: {from: "spec.ports[*].portName", to: "spec.endpoints[*].name"}}, {rename: {from: spec.ports, to: spec.endpoints}}]`,
			spokeSpec: `{"ports":[{"portName":"a","port":1}]}`,
			hubSpec:   `{"endpoints":[{"name":"a","port":1}]}`,
		},
		"a parent of the list moved": {
			spoke:     `{net: {type: object, properties: ` + portsV1 + `}}`,
			hub:       `{network: {type: object, properties: ` + portsV2 + `}}`,
			rules:     `[{rename: {from: spec.net, to: spec.network}}, {rename: {from: "spec.net.ports[*].portName", to: "spec.network.ports[*].name"}}]`,
			spokeSpec: `{"net":{"ports":[{"portName":"a"}]}}`,
			hubSpec:   `{"network":{"ports":[{"name":"a"}]}}`,
		},
		"a list in elements moved by a rule in elements": {
			spoke:     `{groups: {type: array, items: {type: object, properties: {ports: ` + listV1 + `}}}}`,
			hub:       `{groups: {type: array, items: {type: object, properties: {endpoints: ` + listV2 + `}}}}`,
			rules:     `[{rename: {from: "spec.groups[*].ports", to: "spec.groups[*].endpoints"}}, {rename: {from: "spec.groups[*].ports[*].portName", to: "spec.groups[*].endpoints[*].name"}}]`,
			spokeSpec: `{"groups":[{"ports":[{"portName":"a"}]},{"ports":[{"portName":"b","port":2}]}]}`,
			hubSpec:   `{"groups":[{"endpoints":[{"name":"a"}]},{"endpoints":[{"name":"b","port":2}]}]}`,
		},
		"elements and the rest of the object": {
			spoke:     `{height: {type: integer}, ports: ` + listV1 + `}`,
			hub:       `{heightInInches: {type: integer}, ports: ` + listV2 + `}`,
			rules:     `[{rename: {from: spec.height, to: spec.heightInInches}}, {rename: {from: "spec.ports[*].portName", to: "spec.ports[*].name"}}]`,
			spokeSpec: `{"height":3,"ports":[{"portName":"a"}]}`,
			hubSpec:   `{"heightInInches":3,"ports":[{"name":"a"}]}`,
		},
		"empty list and elements that are not objects": {
			spoke: portsV1, hub: portsV2,
			rules:     `[{rename: {from: "spec.ports[*].portName", to: "spec.ports[*].name"}}]`,
			spokeSpec: `{"ports":[]}`, hubSpec: `{"ports":[]}`,
		},
	}
	runRuleCases(t, tests)
}

// TestElementBookkeeping: what a version cannot hold of a list element
// stays with that element when a client of the version reorders, removes,
// edits or adds elements: by key in a list of type map, by value in any
// other list.
func TestElementBookkeeping(t *testing.T) {
	ports := func(mapList bool, extra string) string {
		list := `{type: array, items: {type: object, properties: {name: {type: string}, port: {type: integer}, proto: {type: string}` + extra + `}}`
		if mapList {
			list += `, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name]`
		}
		return `{ports: ` + list + `}}`
	}
	const rules = `[{enum: {from: "spec.ports[*].proto", values: {tcp: TCP, udp: UDP}}}]`
	const hub = `{"ports":[{"name":"a","port":80,"proto":"TCP","app":"http"},{"name":"b","port":81,"proto":"UDP","app":"grpc"},{"name":"c","port":82,"proto":"TCP","app":"h2"}]}`
	tests := map[string]struct {
		mapList bool
		start   string // the spec of the hub object
		edit    func(t *testing.T, v1 string) string
		want    string // the spec of the hub object after the v1 client's write
	}{
		"unchanged": {
			start: hub, edit: func(_ *testing.T, v1 string) string { return v1 }, want: hub,
		},
		"map list: reordered, removed, edited, added": {
			mapList: true, start: hub,
			edit: func(t *testing.T, v1 string) string {
				return setSpec(t, v1, "ports", `[{"name":"c","port":82,"proto":"tcp"},{"name":"a","port":8080,"proto":"udp"},{"name":"d","port":83}]`)
			},
			want: `{"ports":[{"name":"c","port":82,"proto":"TCP","app":"h2"},{"name":"a","port":8080,"proto":"UDP","app":"http"},{"name":"d","port":83}]}`,
		},
		"other list: reordered and removed elements keep their data, an edited one loses it": {
			start: hub,
			edit: func(t *testing.T, v1 string) string {
				return setSpec(t, v1, "ports", `[{"proto":"tcp","port":82,"name":"c"},{"name":"a","port":8080,"proto":"tcp"}]`)
			},
			want: `{"ports":[{"name":"c","port":82,"proto":"TCP","app":"h2"},{"name":"a","port":8080,"proto":"TCP"}]}`,
		},
		"other list: the same elements, spelled differently": {
			start: hub,
			edit: func(t *testing.T, v1 string) string {
				return setSpec(t, v1, "ports", `[ {"port":8.1e1, "proto":"udp", "name":"\u0062"}, {"name":"a","port":80,"proto":"tcp"}, {"name":"c","port":82,"proto":"tcp"} ]`)
			},
			want: `{"ports":[{"name":"b","port":81,"proto":"UDP","app":"grpc"},{"name":"a","port":80,"proto":"TCP","app":"http"},{"name":"c","port":82,"proto":"TCP","app":"h2"}]}`,
		},
		"equal elements are told apart by position": {
			start: `{"ports":[{"name":"x","app":"1"},{"name":"x","app":"2"},{"name":"y","app":"3"}]}`,
			edit: func(t *testing.T, v1 string) string {
				return setSpec(t, v1, "ports", `[{"name":"y"},{"name":"x"},{"name":"x"}]`)
			},
			want: `{"ports":[{"name":"y","app":"3"},{"name":"x","app":"2"},{"name":"x","app":"1"}]}`,
		},
		"a rule's data of an element follows it": {
			mapList: true,
			start:   `{"ports":[{"name":"a","proto":"tcp"},{"name":"b","proto":"TCP"}]}`,
			edit: func(t *testing.T, v1 string) string {
				// tcp (not in the hub's enum) and TCP both read as tcp in
				// v1: the hub's spelling is kept per element.
				return setSpec(t, v1, "ports", `[{"name":"b","proto":"tcp"},{"name":"a","proto":"tcp"}]`)
			},
			want: `{"ports":[{"name":"b","proto":"TCP"},{"name":"a","proto":"tcp"}]}`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			res := resource(t, "Frobber", "v2", map[string]string{
				"v1": specSchema(ports(tc.mapList, "")),
				"v2": specSchema(ports(tc.mapList, ", app: {type: string}")),
			})
			r := compile(t, res, "v1", rules)
			v1, err := r.FromHub([]byte(obj("v2", `,"spec":`+tc.start)), testGroup+"/v1")
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.ToHub([]byte(tc.edit(t, string(v1))), testGroup+"/v2")
			if err != nil {
				t.Fatal(err)
			}
			mustEqualJSON(t, "written back", string(got), obj("v2", `,"spec":`+tc.want))
		})
	}
}

func setSpec(t *testing.T, o, field, raw string) string {
	t.Helper()
	out, err := sjson.SetRaw(o, "spec."+field, raw)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestKeptInMovedObjects: a field the other version lacks, inside an
// object or list that a rule moves, comes back where it was (it is kept
// at its path in the version the object went to, and put back before the
// rules run back).
func TestKeptInMovedObjects(t *testing.T) {
	tests := map[string]struct {
		spoke, hub, rules, hubSpec string
	}{
		"a renamed list": {
			spoke:   `{ports: {type: array, items: {type: object, properties: {name: {type: string}}}}}`,
			hub:     `{endpoints: {type: array, items: {type: object, properties: {name: {type: string}, proto: {type: string}}}}}`,
			rules:   `[{rename: {from: spec.ports, to: spec.endpoints}}]`,
			hubSpec: `{"endpoints":[{"name":"a","proto":"tcp"},{"name":"b"}]}`,
		},
		"a renamed object": {
			spoke:   `{size: {type: object, properties: {w: {type: integer}}}}`,
			hub:     `{dimensions: {type: object, properties: {w: {type: integer}, unit: {type: string}}}}`,
			rules:   `[{rename: {from: spec.size, to: spec.dimensions}}]`,
			hubSpec: `{"dimensions":{"w":1,"unit":"cm"}}`,
		},
		"a nested object": {
			spoke:   `{w: {type: object, properties: {a: {type: integer}}}}`,
			hub:     `{size: {type: object, properties: {w: {type: object, properties: {a: {type: integer}, b: {type: integer}}}}}}`,
			rules:   `[{nest: {from: spec, fields: [w], to: spec.size}}]`,
			hubSpec: `{"size":{"w":{"a":1,"b":2}}}`,
		},
		"a scalar that is a list's first element": {
			spoke:   `{port: {type: object, properties: {n: {type: integer}}}}`,
			hub:     `{ports: {type: array, items: {type: object, properties: {n: {type: integer}, name: {type: string}}}}}`,
			rules:   `[{toList: {from: spec.port, to: spec.ports}}]`,
			hubSpec: `{"ports":[{"n":1,"name":"a"},{"n":2,"name":"b"}]}`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			res := resource(t, "Frobber", "v2", map[string]string{"v1": specSchema(tc.spoke), "v2": specSchema(tc.hub)})
			r := compile(t, res, "v1", tc.rules)
			if p, err := r.RoundTrip([]byte(obj("v2", `,"spec":`+tc.hubSpec))); err != nil {
				t.Errorf("at %q: %v", p, err)
			}
		})
	}
}

// TestLegacyIndexPaths: an annotation written before elements were known
// by their identity names them by index; it is still read.
func TestLegacyIndexPaths(t *testing.T) {
	res := resource(t, "Frobber", "v2", map[string]string{
		"v1": specSchema(`{ports: {type: array, items: {type: object, properties: {name: {type: string}}}}}`),
		"v2": specSchema(`{ports: {type: array, items: {type: object, properties: {name: {type: string}, proto: {type: string}}}}}`),
	})
	r := compile(t, res, "v1", `[]`)
	bk, _ := json.Marshal(`{"v2":{"fields":[{"p":["spec","ports",1,"proto"],"v":"udp"}]}}`)
	v1 := `{"apiVersion":"` + testGroup + `/v1","kind":"Frobber","metadata":{"name":"f","annotations":{"` + Annotation + `":` + string(bk) + `}},"spec":{"ports":[{"name":"a"},{"name":"b"}]}}`
	got, err := r.ToHub([]byte(v1), testGroup+"/v2")
	if err != nil {
		t.Fatal(err)
	}
	mustEqualJSON(t, "to hub", string(got), obj("v2", `,"spec":{"ports":[{"name":"a"},{"name":"b","proto":"udp"}]}`))
}

// TestBadElementBookkeeping: element references specd did not write are
// refused as a malformed annotation.
func TestBadElementBookkeeping(t *testing.T) {
	r := portsResource(t)
	for name, entry := range map[string]string{
		"a negative index":   `{"cut":[{"p":["spec","ports",-1,"app"],"v":"x"}]}`,
		"a reference no id":  `{"cut":[{"p":["spec","ports",{"i":0},"app"],"v":"x"}]}`,
		"an element no data": `{"elems":{"r":[{"p":["spec","ports",{"i":0,"id":"h:0"}]}]}}`,
		"a path of nothing":  `{"cut":[{"p":[],"v":"x"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			bk, _ := json.Marshal(`{"v1":` + entry + `}`)
			v2 := `{"apiVersion":"` + testGroup + `/v2","kind":"Frobber","metadata":{"name":"f","annotations":{"` + Annotation + `":` + string(bk) + `}},"spec":{"ports":[{"name":"a"}]}}`
			if _, err := r.FromHub([]byte(v2), testGroup+"/v1"); !errors.Is(err, ErrBookkeeping) {
				t.Errorf("err = %v, want ErrBookkeeping", err)
			}
		})
	}
}
