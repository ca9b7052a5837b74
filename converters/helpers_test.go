package converters

import (
	"encoding/json"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/tidwall/gjson"
	"sigs.k8s.io/yaml"

	"github.com/specd-io/specd/schemas"
)

const testGroup = "frobs.example.com"

// resource builds a resource of testGroup from version -> object schema
// (YAML); hub names the storage version.
func resource(t testing.TB, kind, hub string, versions map[string]string) *schemas.Resource {
	t.Helper()
	res := &schemas.Resource{Group: testGroup, Kind: kind, ListKind: kind + "List", StorageVersion: hub}
	for _, v := range sortedKeys(versions) {
		var s openapi3.Schema
		if err := json.Unmarshal(yamlJSON(t, versions[v]), &s); err != nil {
			t.Fatalf("schema %s: %v", v, err)
		}
		res.Versions = append(res.Versions, &schemas.ResourceVersion{
			Resource: res, Version: v, Storage: v == hub, File: v + ".yaml",
			Pointer: "/components/schemas/" + kind, OpenAPI: &s,
		})
	}
	return res
}

func yamlJSON(t testing.TB, y string) []byte {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatalf("yaml: %v\n%s", err, y)
	}
	return j
}

// ruleList decodes a YAML rule list as the schemas package hands it over.
func ruleList(t testing.TB, y string) []any {
	t.Helper()
	var rules []any
	if err := json.Unmarshal(yamlJSON(t, y), &rules); err != nil {
		t.Fatalf("rules: %v", err)
	}
	return rules
}

func compile(t testing.TB, res *schemas.Resource, spoke, rules string) *Rules {
	t.Helper()
	r, probs := Compile(res.Version(spoke), res.Version(res.StorageVersion), ruleList(t, rules), spoke+".yaml", rulesPointer)
	if len(probs) > 0 {
		t.Fatalf("compile: %v", probs)
	}
	return r
}

const rulesPointer = "/components/schemas/Frobber/x-specd-resource/conversion/rules"

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}

// obj wraps a spec (and optional extra top-level JSON) in a Frobber of
// version v.
func obj(v, rest string) string {
	return `{"apiVersion":"` + testGroup + `/` + v + `","kind":"Frobber","metadata":{"name":"f"}` + rest + `}`
}

func mustEqualJSON(t *testing.T, what, got, want string) {
	t.Helper()
	if d := firstDiff(normal([]byte(got)), normal([]byte(want)), nil); d != nil {
		t.Errorf("%s: differs at %q\n got: %s\nwant: %s", what, d, got, want)
	}
}

// The api-changes seed's Frobber: v1 (spoke) and v2 (hub, storage).
const frobberV1 = `
type: object
properties:
  spec:
    type: object
    properties:
      height: {type: integer}
      width: {type: integer}
      param: {type: string}
      mode: {type: string, enum: [fast, safe]}
      command: {type: string}
      legacy: {type: boolean}
  status:
    type: object
    properties:
      phase: {type: string}
`

const frobberV2 = `
type: object
properties:
  spec:
    type: object
    properties:
      heightInInches: {type: integer}
      widthInInches: {type: integer}
      params: {type: array, items: {type: string}}
      mode: {type: string, enum: [Fast, Safe]}
      args: {type: array, items: {type: string}}
      unit: {type: string}
      color: {type: string}
  status:
    type: object
    properties:
      phase: {type: string}
      conditions: {type: array, items: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`

const frobberRules = `
- rename: {from: spec.height, to: spec.heightInInches}
- rename: {from: spec.width, to: spec.widthInInches}
- toList: {from: spec.param, to: spec.params}
- enum: {from: spec.mode, values: {fast: Fast, safe: Safe}}
- split: {from: spec.command, to: spec.args, separator: " "}
- constant: {to: spec.unit, value: inches}
- constant: {from: spec.legacy, value: false}
`

func frobber(t testing.TB) (*schemas.Resource, *Rules) {
	t.Helper()
	res := resource(t, "Frobber", "v2", map[string]string{"v1": frobberV1, "v2": frobberV2})
	return res, compile(t, res, "v1", frobberRules)
}

func gjsonStr(j, p string) string { return gjson.Get(j, p).Str }

// ruleCase is a kind in two versions whose specs differ (spec properties
// in YAML flow), the rules that map the spoke v1 to the hub v2, and a
// spec of each that the rules map one to the other (JSON).
type ruleCase struct {
	spoke, hub string // spec properties (YAML flow)
	rules      string
	spokeSpec  string // JSON
	hubSpec    string
}

// runRuleCases converts each case's spoke object to the hub and back, and
// its hub object to the spoke: each is the object wanted, and both round
// trip.
func runRuleCases(t *testing.T, tests map[string]ruleCase) {
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			res := resource(t, "Frobber", "v2", map[string]string{
				"v1": specSchema(tc.spoke), "v2": specSchema(tc.hub),
			})
			r := compile(t, res, "v1", tc.rules)
			spoke, hub := obj("v1", `,"spec":`+tc.spokeSpec), obj("v2", `,"spec":`+tc.hubSpec)
			got, err := r.ToHub([]byte(spoke), testGroup+"/v2")
			if err != nil {
				t.Fatal(err)
			}
			mustEqualJSON(t, "to hub", string(got), hub)
			back, err := r.FromHub(got, testGroup+"/v1")
			if err != nil {
				t.Fatal(err)
			}
			mustEqualJSON(t, "back from hub", string(back), spoke)
			got, err = r.FromHub([]byte(hub), testGroup+"/v1")
			if err != nil {
				t.Fatal(err)
			}
			mustEqualJSON(t, "inverse: from hub", string(got), spoke)
			for _, o := range []string{spoke, hub} {
				if p, err := r.RoundTrip([]byte(o)); err != nil {
					t.Errorf("round trip of %s: at %q: %v", o, p, err)
				}
			}
		})
	}
}

func specSchema(props string) string {
	return "{type: object, properties: {spec: {type: object, properties: " + props + "}}}"
}
