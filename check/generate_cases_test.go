package check

import (
	"testing"
)

// TestGenerateConstraints: each schema uses one kind of constraint; every
// generated object must validate.
func TestGenerateConstraints(t *testing.T) {
	cases := map[string]version{
		"enum and int32 bounds": {spec: `
color: {type: string, enum: [red, green]}
size: {type: integer, format: int32, minimum: 1000, maximum: 1005}`},
		"exclusive bounds and multipleOf": {spec: `
n: {type: integer, minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true, multipleOf: 3}
f: {type: number, minimum: -1.5, maximum: -1, multipleOf: 0.25}
neg: {type: integer, maximum: -500}`, extra: `required: [n, f, neg]`},
		"string lengths and pattern": {spec: `
code: {type: string, pattern: '^[A-Z]{3}-[0-9]{2,4}$'}
short: {type: string, minLength: 2, maxLength: 3}
dns: {type: string, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'}
quantity: {x-kubernetes-int-or-string: true, pattern: '^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$'}`,
			extra: `required: [code, short, dns, quantity]`},
		"formats": {spec: `
a: {type: string, format: date-time}
b: {type: string, format: date}
c: {type: string, format: uuid}
d: {type: string, format: email}
e: {type: string, format: ipv4}
f: {type: string, format: ipv6}
g: {type: string, format: cidr}
h: {type: string, format: mac}
i: {type: string, format: byte}
j: {type: string, format: duration}
k: {type: string, format: hostname}
l: {type: string, format: uri}
m: {type: string, format: uuid3}
n: {type: string, format: bsonobjectid}`,
			extra: `required: [a, b, c, d, e, f, g, h, i, j, k, l, m, n]`},
		"arrays": {spec: `
set: {type: array, x-kubernetes-list-type: set, minItems: 3, items: {type: string, enum: [a, b, c, d]}}
unique: {type: array, uniqueItems: true, minItems: 2, maxItems: 2, items: {type: integer, minimum: 0, maximum: 2}}
ports:
  type: array
  minItems: 2
  x-kubernetes-list-type: map
  x-kubernetes-list-map-keys: [name]
  items:
    type: object
    properties:
      name: {type: string, enum: [http, https, grpc]}
      port: {type: integer}`,
			extra: `required: [set, unique, ports]`},
		"maps, properties counts and unknown fields": {spec: `
labels: {type: object, minProperties: 2, maxProperties: 3, additionalProperties: {type: string, maxLength: 5}}
free: {type: object, x-kubernetes-preserve-unknown-fields: true, minProperties: 1}
nested:
  type: object
  required: [deep]
  properties:
    deep:
      type: object
      required: [deeper]
      properties:
        deeper: {type: array, minItems: 1, items: {type: object, required: [x], properties: {x: {type: boolean}}}}`,
			extra: `required: [labels, free, nested]`},
		"oneOf and not": {spec: `
a: {type: string}
b: {type: string}
c: {type: string}`, extra: `
oneOf:
- required: [a]
- required: [b]
not:
  required: [c]`},
		"embedded resource": {spec: `
template:
  type: object
  x-kubernetes-embedded-resource: true
  x-kubernetes-preserve-unknown-fields: true`, extra: `required: [template]`},
		"nullable": {spec: `
notes: {type: string, nullable: true}`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			c.name, c.storage = "v1", true
			reg := loadDir(t, writeDir(t, c))
			for seed := range int64(4) {
				checkGenerated(t, reg, seed)
			}
		})
	}
}
