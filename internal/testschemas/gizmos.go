package testschemas

import (
	"fmt"
	"testing/fstest"
)

// Rename rules that the version not stored declares towards the storage
// version.
const (
	gizmoV1Rules = "        conversion: {rules: [{rename: {from: spec.colour, to: spec.color}}]}\n"
	gizmoV2Rules = "        conversion: {rules: [{rename: {from: spec.color, to: spec.colour}}]}\n"
)

// Gizmos returns the two files of the Gizmo resource of group, the one the
// storage version tests convert: v1 says spec.colour where v2 says
// spec.color, and only v2 has spec.label, which an object stored in v1
// keeps in the conversion bookkeeping. storage ("v1" or "v2") is the
// storage version; the other version declares the rename rule. A group of
// its own per test keeps the tests' metric series apart.
func Gizmos(group, storage string) fstest.MapFS {
	file := func(version, rules string) *fstest.MapFile {
		if version == storage {
			rules = ""
		}
		data := struct {
			Group, Rules string
			Stored       bool
		}{group, rules, version == storage}
		return &fstest.MapFile{Data: []byte(render(gizmosTmpl, "gizmos-"+version+".yaml.tmpl", data))}
	}
	return fstest.MapFS{
		group + "/v1.yaml": file("v1", gizmoV1Rules),
		group + "/v2.yaml": file("v2", gizmoV2Rules),
	}
}

// GizmoV1 is a Gizmo object of group in v1 (spec.colour red).
func GizmoV1(group, name string, size int) string {
	return fmt.Sprintf(`{"apiVersion":"%s/v1","kind":"Gizmo","metadata":{"name":%q},"spec":{"size":%d,"colour":"red"}}`, group, name, size)
}

// GizmoV2 is a Gizmo object of group in v2 (spec.color blue).
func GizmoV2(group, name string, size int, label string) string {
	return fmt.Sprintf(`{"apiVersion":"%s/v2","kind":"Gizmo","metadata":{"name":%q},"spec":{"size":%d,"color":"blue","label":%q}}`,
		group, name, size, label)
}
