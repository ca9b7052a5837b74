package schemas

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
)

// gv is a schema file of group and version with the given components
// schemas (YAML, indented as at the top level).
func gv(group, version, schemas string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "openapi: 3.0.3\ninfo: {title: test, version: %s}\nx-specd: {group: %s}\ncomponents:\n  schemas:\n", version, group)
	for _, line := range strings.Split(strings.Trim(schemas, "\n"), "\n") {
		b.WriteString("    " + line + "\n")
	}
	return b.String()
}

// widget is a minimal resource schema named name with the given
// x-specd-resource (flow YAML).
func widget(name, ext string) string {
	return name + ":\n  type: object\n  x-specd-resource: " + ext + "\n  properties:\n    spec: {type: object, properties: {color: {type: string}, size: {type: integer}}}\n"
}

func mapFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}

// want is an expected problem: file, pointer, and a part of the message.
type want struct{ file, pointer, msg string }

func loadProblems(t *testing.T, files map[string]string) []Problem {
	t.Helper()
	reg, err := LoadFS(mapFS(files))
	if err == nil {
		t.Fatalf("LoadFS succeeded (%d groups), want problems", len(reg.Groups()))
	}
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("LoadFS error is %T (%v), want *LoadError", err, err)
	}
	return le.Problems
}

// matchProblems checks that got and wants pair up one to one.
func matchProblems(t *testing.T, got []Problem, wants []want) {
	t.Helper()
	left := append([]Problem(nil), got...)
	var missing []want
	for _, w := range wants {
		found := -1
		for i, p := range left {
			if p.File == w.file && p.Pointer == w.pointer && strings.Contains(p.Message, w.msg) {
				found = i
				break
			}
		}
		if found < 0 {
			missing = append(missing, w)
			continue
		}
		left = append(left[:found], left[found+1:]...)
	}
	if len(missing) == 0 && len(left) == 0 {
		return
	}
	var lines []string
	for _, p := range got {
		lines = append(lines, "  "+p.String())
	}
	sort.Strings(lines)
	t.Errorf("problems do not match\nmissing: %+v\nunexpected: %v\nall:\n%s", missing, left, strings.Join(lines, "\n"))
}

const sx = "/components/schemas/Widget/x-specd-resource"

func TestLoadProblems(t *testing.T) {
	tests := map[string]struct {
		files map[string]string
		want  []want
	}{
		"yaml syntax": {
			files: map[string]string{"a.yaml": "openapi: 3.0.3\ninfo: {title: t, version: v1\n"},
			want:  []want{{"a.yaml", "", "invalid YAML: yaml: line 2"}},
		},
		"yaml duplicate key": {
			files: map[string]string{"a.yaml": gv("a.example.com", "v1", widget("Widget", "{}")) + "openapi: 3.0.3\n"},
			want:  []want{{"a.yaml", "", `"openapi" already set`}},
		},
		"json syntax": {
			files: map[string]string{"a.json": "{\n  \"openapi\": \"3.0.3\",\n  \"info\": {\"title\": \"t\" \"version\": \"v1\"}\n}\n"},
			want:  []want{{"a.json", "", "invalid JSON at line 3, column 25"}},
		},
		"wrong type for an OpenAPI field": {
			files: map[string]string{"a.yaml": gv("a.example.com", "v1", "Widget: {type: 5}")},
			want: []want{
				{"a.yaml", "/components/schemas/Widget/type", "cannot unmarshal number into field Schema.type of type string"},
				{"a.yaml", "/components/schemas", "declares no resource"},
			},
		},
		"values of the wrong shape are located, and the rest is still checked": {
			files: map[string]string{"a.yaml": gv("Bad_Group", "v1",
				"Widget:\n  type: object\n  x-specd-resource: {}\n  properties:\n"+
					`    spec: {type: object, properties: {size: {type: integer, minimum: "x"}, tags: {type: array, items: {type: string}, enum: 3}}}`)},
			want: []want{
				{"a.yaml", "/components/schemas/Widget/properties/spec/properties/size/minimum", "cannot unmarshal string into field Schema.minimum of type float64"},
				{"a.yaml", "/components/schemas/Widget/properties/spec/properties/tags/enum", "cannot unmarshal number"},
				{"a.yaml", "/x-specd/group", `group "Bad_Group": a lowercase RFC 1123 subdomain`},
				{"a.yaml", "/x-specd/group", `group "Bad_Group": should be a domain with at least one dot`},
			},
		},
		"two yaml documents": {
			files: map[string]string{"a.yaml": "---\n" + gv("a.example.com", "v1", widget("Widget", "{}")) + "---\n" + gv("a.example.com", "v2", widget("Widget", "{}"))},
			want:  []want{{"a.yaml", "", "line 12: a schema file holds one YAML document"}},
		},
		"empty file": {
			files: map[string]string{"a.yml": "\n# nothing\n"[:1]},
			want:  []want{{"a.yml", "", "the file is empty"}},
		},
		"unresolved and external refs": {
			files: map[string]string{"a.yaml": gv("a.example.com", "v1", `
Widget:
  type: object
  x-specd-resource: {}
  properties:
    spec: {$ref: '#/components/schemas/Nope'}
    other: {$ref: 'other.yaml#/Spec'}
`)},
			want: []want{
				{"a.yaml", "/components/schemas/Widget/properties/spec/$ref", `"#/components/schemas/Nope": does not resolve`},
				{"a.yaml", "/components/schemas/Widget/properties/other/$ref", "only references inside the same document"},
			},
		},
		"invalid OpenAPI": {
			files: map[string]string{"a.yaml": strings.Replace(gv("a.example.com", "v1", `
Widget:
  type: object
  x-specd-resource: {}
  properties:
    spec:
      type: object
      properties:
        size: {type: integr}
        ok: {type: string}
        count: {type: integer, default: many}
Helper: {type: strin}
`), "title: test, ", "", 1)},
			want: []want{
				{"a.yaml", "/info/title", "title must be a non-empty string"},
				{"a.yaml", "/components/schemas/Widget/properties/spec/properties/size/type", `unsupported 'type' value "integr"`},
				{"a.yaml", "/components/schemas/Widget/properties/spec/properties/count/default", "invalid default: value must be an integer"},
				{"a.yaml", "/components/schemas/Helper/type", `"strin"`},
			},
		},
		"not OpenAPI 3.0": {
			files: map[string]string{"a.yaml": strings.Replace(gv("a.example.com", "v1", widget("Widget", "{}")), "3.0.3", "3.1.0", 1)},
			want:  []want{{"a.yaml", "/openapi", "specd reads OpenAPI 3.0 documents"}},
		},
		"missing x-specd": {
			files: map[string]string{"a.yaml": strings.Replace(gv("a.example.com", "v1", widget("Widget", "{}")), "x-specd: {group: a.example.com}\n", "", 1)},
			want:  []want{{"a.yaml", "", "missing x-specd"}},
		},
		"bad groups": {
			files: map[string]string{
				"a.yaml": gv("Shop_Example.com", "v1", widget("Widget", "{}")),
				"b.yaml": gv("shop", "v1", widget("Widget", "{}")),
				"c.yaml": strings.Replace(gv("x", "v1", widget("Widget", "{}")), "{group: x}", "{group: a.example.com, owner: me}", 1),
			},
			want: []want{
				{"a.yaml", "/x-specd/group", "RFC 1123 subdomain"},
				{"b.yaml", "/x-specd/group", "at least one dot"},
				{"c.yaml", "/x-specd/owner", `unknown field "owner"`},
			},
		},
		"bad versions": {
			files: map[string]string{
				"a.yaml": gv("a.example.com", "1.0.0", widget("Widget", "{}")),
				"b.yaml": gv("b.example.com", "v1beta", widget("Widget", "{}")),
				"c.yaml": gv("c.example.com", "v0", widget("Widget", "{}")),
			},
			want: []want{
				{"a.yaml", "/info/version", `version "1.0.0"`},
				{"b.yaml", "/info/version", `version "v1beta"`},
				{"c.yaml", "/info/version", `version "v0"`},
			},
		},
		"kind not UpperCamel": {
			files: map[string]string{"a.yaml": gv("a.example.com", "v1",
				widget("Widget", "{kind: my-widget}")+widget("gadget", "{}")+widget("Thing", "{kind: Thing_2}"))},
			want: []want{
				{"a.yaml", sx + "/kind", `kind "my-widget": must be UpperCamelCase`},
				{"a.yaml", "/components/schemas/gadget/x-specd-resource", `kind "gadget" (the default from the schema name): must be UpperCamelCase`},
				{"a.yaml", "/components/schemas/Thing/x-specd-resource/kind", `kind "Thing_2"`},
			},
		},
		"bad names": {
			files: map[string]string{"a.yaml": gv("a.example.com", "v1",
				widget("Widget", "{plural: Widgets, singular: w_idget, shortNames: [w, W1, w], categories: [all, 9lives], scope: Global, storage: yes}"))},
			want: []want{
				{"a.yaml", sx + "/plural", `plural "Widgets"`},
				{"a.yaml", sx + "/singular", `singular "w_idget"`},
				{"a.yaml", sx + "/shortNames/1", `"W1"`},
				{"a.yaml", sx + "/shortNames/2", "listed twice"},
				{"a.yaml", sx + "/categories/1", `"9lives"`},
				{"a.yaml", sx + "/scope", "must be Namespaced or Cluster"},
				{"a.yaml", sx + "/storage", "must be a boolean"},
			},
		},
		"bad verbs": {
			files: map[string]string{"a.yaml": gv("a.example.com", "v1",
				widget("Widget", "{verbs: [get, read, get]}")+widget("Gadget", "{verbs: []}")+widget("Gizmo", "{verbs: get}"))},
			want: []want{
				{"a.yaml", sx + "/verbs/1", `unknown verb "read": must be one of create, delete, deletecollection, get, list, patch, update, watch`},
				{"a.yaml", sx + "/verbs/2", `"get" is listed twice`},
				{"a.yaml", "/components/schemas/Gadget/x-specd-resource/verbs", "must list at least one verb"},
				{"a.yaml", "/components/schemas/Gizmo/x-specd-resource/verbs", "must be a list of strings, not a string"},
			},
		},
		"unknown fields in x-specd-resource": {
			files: map[string]string{"a.yaml": gv("a.example.com", "v1",
				widget("Widget", "{plurals: widgets, subresources: {status: {}, autoscale: {}}}")+widget("Gadget", "[not, an, object]"))},
			want: []want{
				{"a.yaml", sx + "/plurals", `unknown field "plurals"`},
				{"a.yaml", sx + "/subresources/autoscale", `unknown field "autoscale"`},
				{"a.yaml", "/components/schemas/Gadget/x-specd-resource", "must be an object, not a list"},
			},
		},
		"scale subresource paths": {
			files: map[string]string{"a.yaml": gv("a.example.com", "v1",
				widget("Widget", "{subresources: {scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .spec.size, labelSelectorPath: .metadata.labels, x: 1}}}")+
					widget("Gadget", "{subresources: {scale: {specReplicasPath: .spec.color}}}"))},
			want: []want{
				{"a.yaml", sx + "/subresources/scale/x", `unknown field "x"`},
				{"a.yaml", sx + "/subresources/scale/specReplicasPath", `the schema has no field "replicas" there`},
				{"a.yaml", sx + "/subresources/scale/statusReplicasPath", "should be a json path under .status"},
				{"a.yaml", sx + "/subresources/scale/labelSelectorPath", "should be a json path under .spec or .status"},
				{"a.yaml", "/components/schemas/Gadget/x-specd-resource/subresources/scale/specReplicasPath", "must be a field of type integer"},
				{"a.yaml", "/components/schemas/Gadget/x-specd-resource/subresources/scale/statusReplicasPath", "statusReplicasPath is required"},
			},
		},
		"no resource": {
			files: map[string]string{"a.yaml": gv("a.example.com", "v1", "Helper: {type: object, x-specd-resources: {}}")},
			want:  []want{{"a.yaml", "/components/schemas", "declares no resource"}},
		},
		"same kind twice in a group version": {
			files: map[string]string{"a.yaml": gv("a.example.com", "v1", widget("Widget", "{}")+widget("Widget2", "{kind: Widget}"))},
			want: []want{
				{"a.yaml", "/components/schemas/Widget2/x-specd-resource/kind", "kind Widget is already declared in this group version at /components/schemas/Widget"},
			},
		},
		"same group version in two files": {
			files: map[string]string{
				"one.yaml":     gv("a.example.com", "v1", widget("Widget", "{}")),
				"sub/two.json": `{"openapi": "3.0.3", "info": {"title": "t", "version": "v1"}, "x-specd": {"group": "a.example.com"}, "components": {"schemas": {"Gadget": {"type": "object", "x-specd-resource": {}}}}}`,
			},
			want: []want{{"sub/two.json", "/info/version", "group version a.example.com/v1 is already declared in one.yaml"}},
		},
		"versions of a kind disagree": {
			files: map[string]string{
				"v1.yaml":      gv("a.example.com", "v1", widget("Widget", "{storage: true, shortNames: [w]}")),
				"v2beta1.yaml": gv("a.example.com", "v2beta1", widget("Widget", "{plural: widgetz, scope: Cluster, singular: wid, categories: [x], verbs: [list, get]}")),
			},
			want: []want{
				{"v2beta1.yaml", sx + "/plural", `kind Widget has plural "widgetz" in version v2beta1 but "widgets" in v1.yaml#/components/schemas/Widget`},
				{"v2beta1.yaml", sx + "/scope", "has scope Cluster in version v2beta1 but Namespaced"},
				{"v2beta1.yaml", sx + "/singular", `singular "wid"`},
				{"v2beta1.yaml", sx, "has shortNames [] in version v2beta1 but [w]"},
				{"v2beta1.yaml", sx + "/categories", "has categories [x]"},
				{"v2beta1.yaml", sx + "/verbs", "has verbs [get, list] in version v2beta1 but every verb (no verbs list)"},
			},
		},
		"no storage version": {
			files: map[string]string{
				"v1.yaml":       gv("a.example.com", "v1", widget("Widget", "{}")),
				"v1alpha1.yaml": gv("a.example.com", "v1alpha1", widget("Widget", "{storage: false}")),
				"v2.yaml":       gv("a.example.com", "v2", widget("Gadget", "{storage: false}")),
			},
			want: []want{
				{"v1.yaml", sx, "kind Widget is declared in versions v1, v1alpha1: exactly one must set storage: true (none does)"},
				{"v1alpha1.yaml", sx, "(none does)"},
				{"v2.yaml", "/components/schemas/Gadget/x-specd-resource/storage", "declared in one version only"},
			},
		},
		"several storage versions": {
			files: map[string]string{
				"v1.yaml":      gv("a.example.com", "v1", widget("Widget", "{storage: true}")),
				"v1beta1.yaml": gv("a.example.com", "v1beta1", widget("Widget", "{storage: true}")),
				"v2.yaml":      gv("a.example.com", "v2", widget("Widget", "{}")),
			},
			want: []want{
				{"v1.yaml", sx + "/storage", "versions v2, v1, v1beta1: exactly one must set storage: true (2 do)"},
				{"v1beta1.yaml", sx + "/storage", "(2 do)"},
			},
		},
		"bad printer columns": {
			files: map[string]string{"a.yaml": gv("a.example.com", "v1", widget("Widget", `{printerColumns: [
  {type: string, jsonPath: .spec.color},
  {name: Size, type: int, format: long, jsonPath: spec.size, priority: -1},
  {name: X, jsonPath: '.spec.items[', description: 7},
  {name: Y, type: date, jsonPath: .metadata.creationTimestamp, priority: 1.5, width: 3},
  oops,
  {name: Data, type: integer, count: [.spec.items]}]}`))},
			want: []want{
				{"a.yaml", sx + "/printerColumns/0/name", "name is required"},
				{"a.yaml", sx + "/printerColumns/1/type", `type "int": must be one of boolean,date,integer,number,string`},
				{"a.yaml", sx + "/printerColumns/1/format", `format "long"`},
				{"a.yaml", sx + "/printerColumns/1/jsonPath", "must be a simple json path starting with ."},
				{"a.yaml", sx + "/printerColumns/1/priority", "must not be negative"},
				{"a.yaml", sx + "/printerColumns/2/type", "type is required"},
				{"a.yaml", sx + "/printerColumns/2/jsonPath", "is not a valid JSONPath"},
				{"a.yaml", sx + "/printerColumns/2/description", "must be a string, not a number"},
				{"a.yaml", sx + "/printerColumns/3/priority", "must be a 32-bit integer"},
				{"a.yaml", sx + "/printerColumns/3/width", `unknown field "width"`},
				{"a.yaml", sx + "/printerColumns/4", "must be an object, not a string"},
				{"a.yaml", sx + "/printerColumns/5/count", "count is for specd's built-in kinds"},
			},
		},
		"bad selectable fields": {
			files: map[string]string{"a.yaml": gv("a.example.com", "v1", widget("Widget", `{selectableFields: [
  {jsonPath: .spec.color}, {jsonPath: .spec}, {jsonPath: .metadata.name}, {jsonPath: .spec.shape},
  {jsonPath: .spec.color}, {jsonPath: 'spec.size'}, {}, {jsonPath: .spec.size},
  {jsonPath: '.spec.items[0]'}]}`))},
			want: []want{
				{"a.yaml", sx + "/selectableFields/1/jsonPath", "must point to a field of type string, boolean or integer"},
				{"a.yaml", sx + "/selectableFields/2/jsonPath", "must not point to fields in metadata"},
				{"a.yaml", sx + "/selectableFields/3/jsonPath", `no field "shape"`},
				{"a.yaml", sx + "/selectableFields/4/jsonPath", "duplicate value"},
				{"a.yaml", sx + "/selectableFields/5/jsonPath", "invalid path"},
				{"a.yaml", sx + "/selectableFields/6/jsonPath", "jsonPath is required"},
				{"a.yaml", sx + "/selectableFields/8/jsonPath", "invalid path"},
			},
		},
		"schema the compiler rejects, through $refs": {
			files: map[string]string{"a.yaml": gv("a.example.com", "v1", `
Widget:
  type: object
  x-specd-resource: {}
  properties:
    spec: {$ref: '#/components/schemas/Spec'}
    status: {type: object, properties: {tags: {type: array, items: {type: string}, x-kubernetes-list-type: bag}}}
Spec:
  type: object
  properties:
    parts: {type: array, items: {$ref: '#/components/schemas/Part'}}
Part:
  type: object
  properties:
    size: {type: string, x-kubernetes-int-or-string: true}
`)},
			want: []want{
				{"a.yaml", "/components/schemas/Widget/properties/status/properties/tags/x-kubernetes-list-type", `"bag"`},
				{"a.yaml", "/components/schemas/Part/properties/size/type", "x-kubernetes-int-or-string"},
			},
		},
		"resource schema roots": {
			files: map[string]string{"a.yaml": gv("a.example.com", "v1", `
Widget: {type: string, x-specd-resource: {}}
Gadget: {description: no type, x-specd-resource: {}}
Gizmo: {type: object, nullable: true, x-specd-resource: {}}
Thing:
  type: object
  description: fine without status
  default: {}
  x-specd-resource: {}
Status:
  type: object
  default: {spec: {}}
  minProperties: 1
  anyOf: [{required: [spec]}]
  x-kubernetes-map-type: atomic
  x-kubernetes-preserve-unknown-fields: true
  x-specd-resource: {subresources: {status: {}}}
`)},
			want: []want{
				{"a.yaml", "/components/schemas/Widget/type", "must have type: object"},
				{"a.yaml", "/components/schemas/Gadget/type", "must have type: object"},
				{"a.yaml", "/components/schemas/Gizmo/nullable", "must not be true at the root"},
				{"a.yaml", "/components/schemas/Status/default", "not allowed at the root of a resource schema with the status subresource"},
				{"a.yaml", "/components/schemas/Status/minProperties", "not allowed"},
				{"a.yaml", "/components/schemas/Status/anyOf", "not allowed"},
				{"a.yaml", "/components/schemas/Status/x-kubernetes-map-type", "not allowed"},
			},
		},
		"recursive schema": {
			files: map[string]string{"a.yaml": gv("a.example.com", "v1", `
Widget:
  type: object
  x-specd-resource: {}
  properties:
    spec: {$ref: '#/components/schemas/Node'}
Node:
  type: object
  properties:
    children: {type: array, items: {$ref: '#/components/schemas/Node'}}
`)},
			want: []want{{"a.yaml", "/components/schemas/Node/properties/children/items/$ref", "makes the schema recursive"}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			matchProblems(t, loadProblems(t, tc.files), tc.want)
		})
	}
}
