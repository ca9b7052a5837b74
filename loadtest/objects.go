package loadtest

import (
	"encoding/json"
	"fmt"
)

// alphabet gives the field values; 64 symbols, all JSON-safe without escaping.
const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"

// objectName is the name of the i-th object: obj-00000, obj-00001, ...
func objectName(i int) string { return fmt.Sprintf("obj-%05d", i) }

// generator builds the benchmark objects: apiVersion, kind, metadata and a
// spec of Fields string fields f00, f01, ... of FieldSize characters each.
type generator struct {
	apiVersion string
	kind       string
	namespace  string
	fields     int
	fieldSize  int
}

func newGenerator(c Config) generator {
	apiVersion := c.Version
	if c.Group != "" {
		apiVersion = c.Group + "/" + c.Version
	}
	return generator{apiVersion: apiVersion, kind: c.Kind, namespace: c.Namespace, fields: c.Fields, fieldSize: c.FieldSize}
}

type objectMeta struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

type object struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   objectMeta        `json:"metadata"`
	Spec       map[string]string `json:"spec"`
}

// Object returns the JSON of the i-th object. The values are deterministic
// and differ between objects and fields, so they do not compress to nothing.
func (g generator) Object(i int) []byte {
	spec := make(map[string]string, g.fields)
	for f := 0; f < g.fields; f++ {
		spec[fieldName(f)] = g.value(i, f, 0)
	}
	b, err := json.Marshal(object{
		APIVersion: g.apiVersion,
		Kind:       g.kind,
		Metadata:   objectMeta{Name: objectName(i), Namespace: g.namespace},
		Spec:       spec,
	})
	if err != nil { // a map of strings always marshals
		panic(err)
	}
	return b
}

// value is the content of field f of object i at generation gen.
func (g generator) value(i, f, gen int) string {
	b := make([]byte, g.fieldSize)
	x := uint64(i)*0x9E3779B97F4A7C15 ^ uint64(f+1)*0xBF58476D1CE4E5B9 ^ uint64(gen+1)*0x94D049BB133111EB
	for k := range b {
		x ^= x << 13 // xorshift64
		x ^= x >> 7
		x ^= x << 17
		b[k] = alphabet[x%uint64(len(alphabet))]
	}
	return string(b)
}

func fieldName(f int) string { return fmt.Sprintf("f%02d", f) }
