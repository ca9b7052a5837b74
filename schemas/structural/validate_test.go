package structural

import (
	"testing"
)

// widgetSchema is the schema of testdata/k8s-reference's Widget CRD (crds.yaml).
const widgetSchema = `{"type":"object","properties":{
	"apiVersion":{"type":"string"},"kind":{"type":"string"},"metadata":{"type":"object"},
	"spec":{"type":"object","required":["size"],"properties":{
		"size":{"type":"integer","minimum":1},
		"color":{"type":"string","enum":["red","green","blue"],"default":"red"},
		"tags":{"type":"array","items":{"type":"string"}}}},
	"status":{"type":"object","properties":{"ready":{"type":"boolean"}}}}}`

func TestValidate(t *testing.T) {
	tests := map[string]struct {
		schema string
		obj    string
		want   []string // "Reason field: message", in order
	}{
		"kube reference: create invalid (09)": {
			schema: widgetSchema,
			obj:    `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"bad"},"spec":{"size":0,"color":"pink"}}`,
			want: []string{
				`FieldValueNotSupported spec.color: Unsupported value: "pink": supported values: "red", "green", "blue"`,
				`FieldValueInvalid spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1`,
			},
		},
		"kube reference: missing required (10)": {
			schema: widgetSchema,
			obj:    `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"bad2"},"spec":{}}`,
			want:   []string{`FieldValueRequired spec.size: Required value`},
		},
		"valid widget": {
			schema: widgetSchema,
			obj:    `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":3,"tags":["a"]},"status":{"ready":true}}`,
		},
		"root meta fields are not validated": {
			schema: `{"type":"object","required":["metadata","spec"],"properties":{"metadata":{"type":"string"},"kind":{"type":"integer"},"spec":{"type":"object"}}}`,
			obj:    `{"apiVersion":1,"kind":"K","spec":{}}`,
		},
		"type errors": {
			schema: `{"type":"object","properties":{"spec":{"type":"object","properties":{
				"size":{"type":"integer"},"name":{"type":"string"},"ok":{"type":"boolean"},
				"ratio":{"type":"number"},"list":{"type":"array","items":{"type":"string"}},"obj":{"type":"object"}}}}}`,
			obj: `{"spec":{"size":"3","name":1,"ok":"yes","ratio":true,"list":{},"obj":[]}}`,
			want: []string{
				`FieldValueTypeInvalid spec.list: Invalid value: "object": spec.list in body must be of type array: "object"`,
				`FieldValueTypeInvalid spec.name: Invalid value: "integer": spec.name in body must be of type string: "integer"`,
				`FieldValueTypeInvalid spec.obj: Invalid value: "array": spec.obj in body must be of type object: "array"`,
				`FieldValueTypeInvalid spec.ok: Invalid value: "string": spec.ok in body must be of type boolean: "string"`,
				`FieldValueTypeInvalid spec.ratio: Invalid value: "boolean": spec.ratio in body must be of type number: "boolean"`,
				`FieldValueTypeInvalid spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"`,
			},
		},
		"integers are numbers, integral floats are integers": {
			schema: `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"integer"},"c":{"type":"integer"}}}`,
			obj:    `{"a":1,"b":2.0,"c":2.5}`,
			want: []string{
				`FieldValueTypeInvalid c: Invalid value: "number": c in body must be of type integer: "number"`,
				`FieldValueInvalid <nil>: Invalid value: "": Checked value must be of type integer (default format) in c`,
			},
		},
		"null: nullable or not": {
			schema: `{"type":"object","properties":{"a":{"type":"string","nullable":true},"b":{"type":"string"}}}`,
			obj:    `{"a":null,"b":null}`,
			want:   []string{`FieldValueTypeInvalid b: Invalid value: "null": b in body must be of type string: "null"`},
		},
		"string lengths and pattern": {
			schema: `{"type":"object","properties":{
				"long":{"type":"string","maxLength":3},"short":{"type":"string","minLength":2},
				"pat":{"type":"string","pattern":"^[a-z]+$"},"both":{"type":"string","maxLength":2,"pattern":"^x$"},
				"runes":{"type":"string","maxLength":2}}}`,
			obj: `{"long":"abcd","short":"a","pat":"A1","both":"abc","runes":"éé"}`,
			want: []string{
				`FieldValueTooLong both: Too long: may not be more than 2 bytes`,
				`FieldValueTooLong long: Too long: may not be more than 3 bytes`,
				`FieldValueInvalid pat: Invalid value: "A1": pat in body should match '^[a-z]+$'`,
				`FieldValueInvalid short: Invalid value: "a": short in body should be at least 2 chars long`,
			},
		},
		"number bounds": {
			schema: `{"type":"object","properties":{
				"min":{"type":"integer","minimum":1},"emin":{"type":"integer","minimum":1,"exclusiveMinimum":true},
				"max":{"type":"number","maximum":1.5},"emax":{"type":"number","maximum":2,"exclusiveMaximum":true},
				"mult":{"type":"integer","multipleOf":3},"fmult":{"type":"number","multipleOf":0.5}}}`,
			obj: `{"min":0,"emin":1,"max":1.75,"emax":2,"mult":7,"fmult":0.7}`,
			want: []string{
				`FieldValueInvalid emax: Invalid value: 2: emax in body should be less than 2`,
				`FieldValueInvalid emin: Invalid value: 1: emin in body should be greater than 1`,
				`FieldValueInvalid fmult: Invalid value: 0.7: fmult in body should be a multiple of 0.5`,
				`FieldValueInvalid max: Invalid value: 1.75: max in body should be less than or equal to 1.5`,
				`FieldValueInvalid min: Invalid value: 0: min in body should be greater than or equal to 1`,
				`FieldValueInvalid mult: Invalid value: 7: mult in body should be a multiple of 3`,
			},
		},
		"int32 range": {
			schema: `{"type":"object","properties":{"port":{"type":"integer","format":"int32"}}}`,
			obj:    `{"port":4294967296}`,
			want:   []string{`FieldValueInvalid <nil>: Invalid value: "": Checked value must be of type integer with format int32 in port`},
		},
		"array sizes and uniqueness": {
			schema: `{"type":"object","properties":{
				"few":{"type":"array","minItems":2,"items":{"type":"string"}},
				"many":{"type":"array","maxItems":1,"items":{"type":"string"}},
				"uniq":{"type":"array","uniqueItems":true,"items":{"type":"integer"}}}}`,
			obj: `{"few":["a"],"many":["a","b"],"uniq":[1,2,1]}`,
			want: []string{
				`FieldValueInvalid few: Invalid value: 1: few in body should have at least 2 items`,
				`FieldValueTooMany many: Too many: 2: must have at most 1 item`,
				`FieldValueInvalid uniq: Invalid value: "": uniq in body shouldn't contain duplicates`,
			},
		},
		"object sizes and additionalProperties": {
			schema: `{"type":"object","properties":{
				"few":{"type":"object","minProperties":2,"additionalProperties":{"type":"string"}},
				"many":{"type":"object","maxProperties":1,"additionalProperties":{"type":"integer"}},
				"closed":{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"}}}}}`,
			obj: `{"few":{"a":"x"},"many":{"a":1,"b":"2"},"closed":{"a":"x","z":1}}`,
			want: []string{
				`FieldValueInvalid closed: Invalid value: "z": closed.z in body is a forbidden property`,
				`FieldValueInvalid few: Invalid value: 1: few in body should have at least 2 properties`,
				`FieldValueTooMany many: Too many: 2: must have at most 1 item`,
				`FieldValueTypeInvalid many.b: Invalid value: "string": many.b in body must be of type integer: "string"`,
			},
		},
		"nested arrays and required in items": {
			schema: `{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","required":["name"],
				"properties":{"name":{"type":"string"},"port":{"type":"integer","maximum":65535}}}}}}`,
			obj: `{"items":[{"name":"a","port":70000},{"port":1}]}`,
			want: []string{
				`FieldValueInvalid items[0].port: Invalid value: 70000: items[0].port in body should be less than or equal to 65535`,
				`FieldValueRequired items[1].name: Required value`,
			},
		},
		"enum of numbers and null": {
			schema: `{"type":"object","properties":{"n":{"type":"integer","enum":[1,2]},"x":{"type":"string","nullable":true,"enum":["a"]}}}`,
			obj:    `{"n":3,"x":null}`,
			want: []string{
				`FieldValueNotSupported n: Unsupported value: 3: supported values: "1", "2"`,
				`FieldValueNotSupported x: Unsupported value: null: supported values: "a"`,
			},
		},
		"formats kube validates": {
			schema: `{"type":"object","properties":{
				"dt":{"type":"string","format":"date-time"},"d":{"type":"string","format":"date"},
				"u":{"type":"string","format":"uuid"},"ip":{"type":"string","format":"ipv4"},
				"ip6":{"type":"string","format":"ipv6"},"c":{"type":"string","format":"cidr"},
				"h":{"type":"string","format":"hostname"},"b":{"type":"string","format":"byte"},
				"dur":{"type":"string","format":"duration"},"m":{"type":"string","format":"mac"},
				"e":{"type":"string","format":"email"},"uri":{"type":"string","format":"uri"},
				"unknown":{"type":"string","format":"no-such-format"},"i32":{"type":"integer","format":"int32"}}}`,
			obj: `{"dt":"yesterday","d":"2024-13-01","u":"nope","ip":"1.2.3","ip6":"x::y","c":"10.0.0.0","h":"-bad-",
				"b":"!!","dur":"1 fortnight","m":"zz","e":"nobody","uri":"not a uri","unknown":"anything","i32":5}`,
			want: []string{
				`FieldValueTypeInvalid b: Invalid value: "!!": b in body must be of type byte: "!!"`,
				`FieldValueTypeInvalid c: Invalid value: "10.0.0.0": c in body must be of type cidr: "10.0.0.0"`,
				`FieldValueTypeInvalid d: Invalid value: "2024-13-01": d in body must be of type date: "2024-13-01"`,
				`FieldValueTypeInvalid dt: Invalid value: "yesterday": dt in body must be of type date-time: "yesterday"`,
				`FieldValueTypeInvalid dur: Invalid value: "1 fortnight": dur in body must be of type duration: "1 fortnight"`,
				`FieldValueTypeInvalid e: Invalid value: "nobody": e in body must be of type email: "nobody"`,
				`FieldValueTypeInvalid h: Invalid value: "-bad-": h in body must be of type hostname: "-bad-"`,
				`FieldValueTypeInvalid ip: Invalid value: "1.2.3": ip in body must be of type ipv4: "1.2.3"`,
				`FieldValueTypeInvalid ip6: Invalid value: "x::y": ip6 in body must be of type ipv6: "x::y"`,
				`FieldValueTypeInvalid m: Invalid value: "zz": m in body must be of type mac: "zz"`,
				`FieldValueTypeInvalid u: Invalid value: "nope": u in body must be of type uuid: "nope"`,
				`FieldValueTypeInvalid uri: Invalid value: "not a uri": uri in body must be of type uri: "not a uri"`,
			},
		},
		"valid formats": {
			schema: `{"type":"object","properties":{
				"dt":{"type":"string","format":"date-time"},"u":{"type":"string","format":"uuid"},
				"ip":{"type":"string","format":"ipv4"},"h":{"type":"string","format":"hostname"},
				"dur":{"type":"string","format":"duration"},"b":{"type":"string","format":"byte"}}}`,
			obj: `{"dt":"2024-01-02T03:04:05Z","u":"123e4567-e89b-12d3-a456-426614174000","ip":"10.1.2.3","h":"example.com","dur":"5m","b":"aGVsbG8="}`,
		},
		"int-or-string": {
			schema: `{"type":"object","properties":{"p":{"x-kubernetes-int-or-string":true,
				"anyOf":[{"type":"integer"},{"type":"string"}],"pattern":"^[0-9]+%$"}}}`,
			obj: `{"p":true}`,
			want: []string{
				`FieldValueTypeInvalid p: Invalid value: "boolean": p in body must be of type integer,string: "boolean"`,
				`FieldValueInvalid <nil>: Invalid value: "": "p" must validate at least one schema (anyOf)`,
				`FieldValueTypeInvalid p: Invalid value: "boolean": p in body must be of type integer: "boolean"`,
			},
		},
		"int-or-string accepts both": {
			schema: `{"type":"object","properties":{"a":{"x-kubernetes-int-or-string":true},"b":{"x-kubernetes-int-or-string":true}}}`,
			obj:    `{"a":80,"b":"50%"}`,
		},
		"anyOf reports the closest alternative (kube-openapi's match count)": {
			schema: `{"type":"object","properties":{"v":{"type":"object","x-kubernetes-preserve-unknown-fields":true,
				"properties":{"a":{"type":"string"},"b":{"type":"integer"}},"anyOf":[{"required":["a","c"]},{"properties":{"b":{"minimum":0}},"required":["a"]}]}}}`,
			obj: `{"v":{"b":1}}`,
			want: []string{
				`FieldValueInvalid <nil>: Invalid value: "": "v" must validate at least one schema (anyOf)`,
				`FieldValueRequired v.a: Required value`,
			},
		},
		"allOf, oneOf, not": {
			schema: `{"type":"object","properties":{
				"all":{"type":"integer","allOf":[{"minimum":1},{"maximum":5}]},
				"one":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"oneOf":[{"required":["a"]},{"required":["b"]}]},
				"not":{"type":"string","not":{"enum":["forbidden"]}}}}`,
			obj: `{"all":9,"one":{"a":"x","b":"y"},"not":"forbidden"}`,
			want: []string{
				`FieldValueInvalid all: Invalid value: 9: all in body should be less than or equal to 5`,
				`FieldValueInvalid <nil>: Invalid value: "": "all" must validate all the schemas (allOf)`,
				`FieldValueInvalid <nil>: Invalid value: "": "not" must not validate the schema (not)`,
				`FieldValueInvalid <nil>: Invalid value: "": "one" must validate one and only one schema (oneOf). Found 2 valid alternatives`,
			},
		},
		"list-type set and map": {
			schema: `{"type":"object","properties":{
				"set":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},
				"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["port"],
					"items":{"type":"object","properties":{"port":{"type":"integer"},"name":{"type":"string"}}}},
				"pairs":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["a","b"],
					"items":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}}}},
				"atomic":{"type":"array","x-kubernetes-list-type":"atomic","items":{"type":"string"}}}}`,
			obj: `{"set":["a","b","a"],"ports":[{"port":80,"name":"x"},{"port":80,"name":"y"},{"name":"z"},{"name":"w"}],
				"pairs":[{"a":"1","b":"2"},{"a":"1","b":"2"}],"atomic":["a","a"]}`,
			want: []string{
				`FieldValueDuplicate pairs[1]: Duplicate value: {"a":"1","b":"2"}`,
				`FieldValueDuplicate ports[1]: Duplicate value: {"port":80}`,
				`FieldValueDuplicate ports[3]: Duplicate value: {}`,
				`FieldValueDuplicate set[2]: Duplicate value: "a"`,
			},
		},
		"list-type map items must be objects": {
			schema: `{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],
				"items":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}`,
			obj: `{"l":[{"k":"a"},"x"]}`,
			want: []string{
				`FieldValueTypeInvalid l[1]: Invalid value: "string": l[1] in body must be of type object: "string"`,
				`FieldValueInvalid l[1]: Invalid value: "x": must be an object for an array of list-type map`,
			},
		},
		"embedded resource": {
			schema: `{"type":"object","properties":{"template":{"type":"object","x-kubernetes-embedded-resource":true,
				"x-kubernetes-preserve-unknown-fields":true}}}`,
			obj: `{"template":{"apiVersion":"a/b/c","kind":"Bad_Kind","metadata":{"name":1}}}`,
			want: []string{
				`FieldValueInvalid template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c`,
				`FieldValueInvalid template.kind: Invalid value: "Bad_Kind": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
				`FieldValueInvalid template.metadata: Invalid value: {"name":1}: json: cannot unmarshal number into Go struct field ObjectMeta.name of type string`,
			},
		},
		"embedded resource requires apiVersion and kind": {
			schema: `{"type":"object","properties":{"templates":{"type":"array","items":{"type":"object",
				"x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}}}`,
			obj: `{"templates":[{"metadata":{"name":"x"}}]}`,
			want: []string{
				`FieldValueRequired templates[0].apiVersion: Required value`,
				`FieldValueRequired templates[0].kind: Required value`,
			},
		},
		"embedded resource metadata is validated as ObjectMeta": {
			schema: `{"type":"object","properties":{"template":{"type":"object","x-kubernetes-embedded-resource":true,
				"x-kubernetes-preserve-unknown-fields":true}}}`,
			obj: `{"template":{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"bad key!":"v"}}}}`,
			want: []string{
				`FieldValueInvalid template.metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
			},
		},
		"preserve-unknown-fields still validates declared fields": {
			schema: `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true,
				"properties":{"n":{"type":"integer"}}}}}`,
			obj:  `{"spec":{"n":"x","other":{"deep":true}}}`,
			want: []string{`FieldValueTypeInvalid spec.n: Invalid value: "string": spec.n in body must be of type integer: "string"`},
		},
		"map keys use dots in schema errors": {
			schema: `{"type":"object","properties":{"labels":{"type":"object","additionalProperties":{"type":"string","maxLength":3}}}}`,
			obj:    `{"labels":{"a.b/c":"toolong","ok":"x"}}`,
			want:   []string{`FieldValueTooLong labels.a.b/c: Too long: may not be more than 3 bytes`},
		},
		"every error is collected": {
			schema: widgetSchema,
			obj:    `{"spec":{"size":"big","color":1,"tags":[1,"a",true]}}`,
			want: []string{
				`FieldValueTypeInvalid spec.color: Invalid value: "integer": spec.color in body must be of type string: "integer"`,
				`FieldValueNotSupported spec.color: Unsupported value: 1: supported values: "red", "green", "blue"`,
				`FieldValueTypeInvalid spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"`,
				`FieldValueTypeInvalid spec.tags[0]: Invalid value: "integer": spec.tags[0] in body must be of type string: "integer"`,
				`FieldValueTypeInvalid spec.tags[2]: Invalid value: "boolean": spec.tags[2] in body must be of type string: "boolean"`,
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := mustCompile(t, tc.schema)
			got := errorStrings(s.Validate(object(t, tc.obj)))
			if joinLines(got) != joinLines(tc.want) {
				t.Errorf("got:\n%s\nwant:\n%s", joinLines(got), joinLines(tc.want))
			}
			// The schema errors are also exactly kube-openapi's.
			compareWithKube(t, name, s, newOracle(t, []byte(tc.schema)), object(t, tc.obj))
		})
	}
}
