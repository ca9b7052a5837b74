package check

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/specd-io/specd/internal/crdcorpus"
	"github.com/specd-io/specd/schemas"
)

const columns = "printerColumns: [{name: Color, type: string, jsonPath: .spec.color}, {name: Size, type: integer, jsonPath: .spec.size}]"

const baseSpec = `
color: {type: string, enum: [red, green]}
size: {type: integer, minimum: 1, maximum: 100, default: 10}
name: {type: string, maxLength: 20}
tags: {type: array, items: {type: string}}`

// TestCompare: one compatibility rule per case, as a pair of tiny schema
// directories. Each finding is "severity rule file#pointer field".
func TestCompare(t *testing.T) {
	v1 := version{name: "v1", storage: true, spec: baseSpec}
	with := func(v version, f func(*version)) version { f(&v); return v }
	spec := func(name, s string) version { return with(v1, func(v *version) { v.name, v.spec = name, s }) }
	served := func(name string) version { return with(v1, func(v *version) { v.name, v.storage = name, false }) }
	cases := map[string]struct {
		previous, next []version
		want           []string
	}{
		"no change": {previous: []version{v1}, next: []version{v1}},
		"new optional field": {
			previous: []version{v1},
			next:     []version{spec("v1", baseSpec+"\nextra: {type: string}")},
		},
		"new required field": {
			previous: []version{v1},
			next:     []version{with(spec("v1", baseSpec+"\nextra: {type: string}"), func(v *version) { v.extra = "required: [extra]" })},
			want:     []string{"error field-required v1.yaml#/components/schemas/Thing/properties/spec/required/0 .spec.extra"},
		},
		"new required field with a default": {
			previous: []version{v1},
			next:     []version{with(spec("v1", baseSpec+"\nextra: {type: string, default: x}"), func(v *version) { v.extra = "required: [extra]" })},
		},
		"existing field becomes required in alpha": {
			previous: []version{spec("v1alpha1", baseSpec)},
			next:     []version{with(spec("v1alpha1", baseSpec), func(v *version) { v.extra = "required: [name]" })},
			want:     []string{"warning field-required v1alpha1.yaml#/components/schemas/Thing/properties/spec/required/0 .spec.name"},
		},
		"removed field": {
			previous: []version{v1},
			next:     []version{spec("v1", strings.Replace(baseSpec, "tags: {type: array, items: {type: string}}", "", 1))},
			want:     []string{"error field-removed v1.yaml#/components/schemas/Thing/properties/spec/properties/tags .spec.tags"},
		},
		"removed field in beta": {
			previous: []version{spec("v2beta1", baseSpec)},
			next:     []version{spec("v2beta1", strings.Replace(baseSpec, "tags: {type: array, items: {type: string}}", "", 1))},
			want:     []string{"error field-removed v2beta1.yaml#/components/schemas/Thing/properties/spec/properties/tags .spec.tags"},
		},
		"removed field in alpha": {
			previous: []version{spec("v1alpha1", baseSpec)},
			next:     []version{spec("v1alpha1", strings.Replace(baseSpec, "tags: {type: array, items: {type: string}}", "", 1))},
			want:     []string{"warning field-removed v1alpha1.yaml#/components/schemas/Thing/properties/spec/properties/tags .spec.tags"},
		},
		"changed type": {
			previous: []version{v1},
			next:     []version{spec("v1", strings.Replace(baseSpec, "name: {type: string, maxLength: 20}", "name: {type: integer}", 1))},
			want:     []string{"error type-changed v1.yaml#/components/schemas/Thing/properties/spec/properties/name/type .spec.name"},
		},
		"changed item type": {
			previous: []version{v1},
			next:     []version{spec("v1", strings.Replace(baseSpec, "items: {type: string}", "items: {type: boolean}", 1))},
			want:     []string{"error type-changed v1.yaml#/components/schemas/Thing/properties/spec/properties/tags/items/type .spec.tags[*]"},
		},
		"new enum value in stable": {
			previous: []version{v1},
			next:     []version{spec("v1", strings.Replace(baseSpec, "[red, green]", "[red, green, blue]", 1))},
			want:     []string{"error enum-value-added v1.yaml#/components/schemas/Thing/properties/spec/properties/color/enum .spec.color"},
		},
		"new enum value in beta": {
			previous: []version{spec("v1beta1", baseSpec)},
			next:     []version{spec("v1beta1", strings.Replace(baseSpec, "[red, green]", "[red, green, blue]", 1))},
			want:     []string{"warning enum-value-added v1beta1.yaml#/components/schemas/Thing/properties/spec/properties/color/enum .spec.color"},
		},
		"removed enum value": {
			previous: []version{v1},
			next:     []version{spec("v1", strings.Replace(baseSpec, "[red, green]", "[red]", 1))},
			want:     []string{"error enum-value-removed v1.yaml#/components/schemas/Thing/properties/spec/properties/color/enum .spec.color"},
		},
		"changed default": {
			previous: []version{v1},
			next:     []version{spec("v1", strings.Replace(baseSpec, "default: 10", "default: 20", 1))},
			want:     []string{"error default-changed v1.yaml#/components/schemas/Thing/properties/spec/properties/size/default .spec.size"},
		},
		"new default": {
			previous: []version{v1},
			next:     []version{spec("v1", strings.Replace(baseSpec, "maxLength: 20", "maxLength: 20, default: anon", 1))},
			want:     []string{"error default-changed v1.yaml#/components/schemas/Thing/properties/spec/properties/name/default .spec.name"},
		},
		"tightened validation": {
			previous: []version{v1},
			next: []version{spec("v1", strings.NewReplacer("maxLength: 20", "maxLength: 10, pattern: '^[a-z]+$'",
				"minimum: 1", "minimum: 5").Replace(baseSpec))},
			want: []string{
				"error validation-tightened v1.yaml#/components/schemas/Thing/properties/spec/properties/name/maxLength .spec.name",
				"error validation-tightened v1.yaml#/components/schemas/Thing/properties/spec/properties/name/pattern .spec.name",
				"error validation-tightened v1.yaml#/components/schemas/Thing/properties/spec/properties/size/minimum .spec.size",
			},
		},
		"loosened validation": {
			previous: []version{v1},
			next:     []version{spec("v1", strings.NewReplacer("maxLength: 20", "maxLength: 30", "minimum: 1", "minimum: 0").Replace(baseSpec))},
		},
		"removed version": {
			previous: []version{v1, served("v2")},
			next:     []version{v1},
			want:     []string{"error version-removed v2.yaml#/components/schemas/Thing "},
		},
		"removed alpha version": {
			previous: []version{v1, served("v2alpha1")},
			next:     []version{v1},
			want:     []string{"warning version-removed v2alpha1.yaml#/components/schemas/Thing "},
		},
		"removed storage version": {
			previous: []version{spec("v1beta1", baseSpec), served("v1")},
			next:     []version{spec("v1", baseSpec)},
			want: []string{
				"error storage-version-removed v1beta1.yaml#/components/schemas/Thing ",
				"error version-removed v1beta1.yaml#/components/schemas/Thing ",
			},
		},
		"changed storage version": {
			previous: []version{spec("v1beta1", baseSpec), served("v1")},
			next:     []version{served("v1beta1"), spec("v1", baseSpec)},
			want:     []string{"warning storage-version-changed v1.yaml#/components/schemas/Thing "},
		},
		"changed scope": {
			previous: []version{v1},
			next:     []version{with(v1, func(v *version) { v.res = "scope: Cluster" })},
			want:     []string{"error scope-changed v1.yaml#/components/schemas/Thing/x-specd-resource "},
		},
		"unserved version": {
			previous: []version{v1, served("v2")},
			next:     []version{v1, with(served("v2"), func(v *version) { v.res = "served: false" })},
			want:     []string{"error version-unserved v2.yaml#/components/schemas/Thing/x-specd-resource "},
		},
		"removed deprecated beta version": {
			previous: []version{v1, with(served("v2beta1"), func(v *version) { v.res = "deprecated: true" })},
			next:     []version{v1},
			want:     []string{"warning version-removed v2beta1.yaml#/components/schemas/Thing "},
		},
		"removed beta version": {
			previous: []version{v1, served("v2beta1")},
			next:     []version{v1},
			want:     []string{"error version-removed v2beta1.yaml#/components/schemas/Thing "},
		},
		"removed selectable field": {
			previous: []version{with(v1, func(v *version) { v.res = "selectableFields: [{jsonPath: .spec.color}]" })},
			next:     []version{v1},
			want:     []string{"error selectable-field-removed v1.yaml#/components/schemas/Thing/x-specd-resource/selectableFields/0 .spec.color"},
		},
		"new validation rule": {
			previous: []version{v1},
			next:     []version{with(v1, func(v *version) { v.extra = "x-kubernetes-validations: [{rule: 'self.size > 2'}]" })},
			want:     []string{"error validation-tightened v1.yaml#/components/schemas/Thing/properties/spec/x-kubernetes-validations/0 .spec"},
		},
		"removed resource": {
			previous: []version{v1},
			next:     []version{with(v1, func(v *version) { v.res = "plural: gizmos" })},
			want: []string{
				"error resource-removed v1.yaml#/components/schemas/Thing ",
				"error storage-version-removed v1.yaml#/components/schemas/Thing ",
			},
		},
		"changed kind": {
			previous: []version{v1},
			next:     []version{with(v1, func(v *version) { v.res = "kind: Gizmo\nplural: things" })},
			want:     []string{"error kind-changed v1.yaml#/components/schemas/Thing/x-specd-resource "},
		},
		"enum value removed in an allOf branch": {
			previous: []version{with(v1, func(v *version) { v.extra = "allOf: [{properties: {name: {enum: [a, b]}}}]" })},
			next:     []version{with(v1, func(v *version) { v.extra = "allOf: [{properties: {name: {enum: [a]}}}]" })},
			want:     []string{"error enum-value-removed v1.yaml#/components/schemas/Thing/properties/spec/allOf/0/properties/name/enum .spec.name"},
		},
		"field removed in a oneOf branch": {
			previous: []version{with(v1, func(v *version) {
				v.extra = "oneOf: [{properties: {color: {enum: [red]}}}, {properties: {color: {enum: [green]}}}]"
			})},
			next: []version{with(v1, func(v *version) {
				v.extra = "oneOf: [{properties: {}}, {properties: {color: {enum: [green]}}}]"
			})},
			want: []string{"error field-removed v1.yaml#/components/schemas/Thing/properties/spec/oneOf/0/properties/color .spec.color"},
		},
		"enum value removed in a oneOf branch in alpha": {
			previous: []version{with(spec("v1alpha1", baseSpec), func(v *version) {
				v.extra = "oneOf: [{properties: {color: {enum: [red, green]}}}, {required: [tags]}]"
			})},
			next: []version{with(spec("v1alpha1", baseSpec), func(v *version) {
				v.extra = "oneOf: [{properties: {color: {enum: [red]}}}, {required: [tags]}]"
			})},
			want: []string{"warning enum-value-removed v1alpha1.yaml#/components/schemas/Thing/properties/spec/oneOf/0/properties/color/enum .spec.color"},
		},
		"new required field in an anyOf branch": {
			previous: []version{with(v1, func(v *version) { v.extra = "anyOf: [{required: [name]}, {required: [tags]}]" })},
			next:     []version{with(v1, func(v *version) { v.extra = "anyOf: [{required: [name, color]}, {required: [tags]}]" })},
			want:     []string{"error field-required v1.yaml#/components/schemas/Thing/properties/spec/anyOf/0/required/1 .spec.color"},
		},
		"anyOf branch removed": {
			previous: []version{with(v1, func(v *version) { v.extra = "anyOf: [{required: [name]}, {required: [tags]}]" })},
			next:     []version{with(v1, func(v *version) { v.extra = "anyOf: [{required: [name]}]" })},
			want:     []string{"error branch-removed v1.yaml#/components/schemas/Thing/properties/spec/anyOf/1 .spec"},
		},
		"allOf branch removed": {
			previous: []version{with(v1, func(v *version) { v.extra = "allOf: [{required: [name]}, {required: [tags]}]" })},
			next:     []version{with(v1, func(v *version) { v.extra = "allOf: [{required: [name]}]" })},
			want:     []string{"warning branch-removed v1.yaml#/components/schemas/Thing/properties/spec/allOf/1 .spec"},
		},
		"anyOf branch added": {
			previous: []version{with(v1, func(v *version) { v.extra = "anyOf: [{required: [name]}]" })},
			next:     []version{with(v1, func(v *version) { v.extra = "anyOf: [{required: [name]}, {required: [tags]}]" })},
		},
		"oneOf branch added": {
			previous: []version{with(v1, func(v *version) { v.extra = "oneOf: [{required: [name]}, {required: [tags]}]" })},
			next:     []version{with(v1, func(v *version) { v.extra = "oneOf: [{required: [name]}, {required: [tags]}, {required: [color]}]" })},
			want:     []string{"error validation-tightened v1.yaml#/components/schemas/Thing/properties/spec/oneOf/2 .spec"},
		},
		"first anyOf": {
			previous: []version{v1},
			next:     []version{with(v1, func(v *version) { v.extra = "anyOf: [{required: [name]}, {required: [tags]}]" })},
			want:     []string{"error validation-tightened v1.yaml#/components/schemas/Thing/properties/spec/anyOf/0 .spec"},
		},
		"list type changed": {
			previous: []version{v1},
			next:     []version{spec("v1", strings.Replace(baseSpec, "items: {type: string}}", "items: {type: string}, x-kubernetes-list-type: set}", 1))},
			want:     []string{"error list-type-changed v1.yaml#/components/schemas/Thing/properties/spec/properties/tags/x-kubernetes-list-type .spec.tags"},
		},
		"list type changed in alpha": {
			previous: []version{spec("v1alpha1", strings.Replace(baseSpec, "items: {type: string}}", "items: {type: string}, x-kubernetes-list-type: set}", 1))},
			next:     []version{spec("v1alpha1", baseSpec)},
			want:     []string{"warning list-type-changed v1alpha1.yaml#/components/schemas/Thing/properties/spec/properties/tags .spec.tags"},
		},
		"map list keys changed": {
			previous: []version{spec("v1", baseSpec+"\nports: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name], items: {type: object, required: [name, port], properties: {name: {type: string}, port: {type: integer}}}}")},
			next:     []version{spec("v1", baseSpec+"\nports: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name, port], items: {type: object, required: [name, port], properties: {name: {type: string}, port: {type: integer}}}}")},
			want:     []string{"error list-type-changed v1.yaml#/components/schemas/Thing/properties/spec/properties/ports/x-kubernetes-list-map-keys .spec.ports"},
		},
		"map type changed in beta": {
			previous: []version{spec("v1beta1", baseSpec+"\nlabels: {type: object, additionalProperties: {type: string}}")},
			next:     []version{spec("v1beta1", baseSpec+"\nlabels: {type: object, additionalProperties: {type: string}, x-kubernetes-map-type: atomic}")},
			want:     []string{"error map-type-changed v1beta1.yaml#/components/schemas/Thing/properties/spec/properties/labels/x-kubernetes-map-type .spec.labels"},
		},
		"the default list and map types said": {
			previous: []version{spec("v1", baseSpec+"\nlabels: {type: object, additionalProperties: {type: string}}")},
			next: []version{spec("v1", strings.Replace(baseSpec, "items: {type: string}}", "items: {type: string}, x-kubernetes-list-type: atomic}", 1)+
				"\nlabels: {type: object, additionalProperties: {type: string}, x-kubernetes-map-type: granular}")},
		},
		"printer column removed": {
			previous: []version{with(v1, func(v *version) { v.res = columns })},
			next:     []version{with(v1, func(v *version) { v.res = "printerColumns: [{name: Size, type: integer, jsonPath: .spec.size}]" })},
			want:     []string{"warning printer-column-removed v1.yaml#/components/schemas/Thing/x-specd-resource/printerColumns/0 .spec.color"},
		},
		"printer column renamed": {
			previous: []version{with(v1, func(v *version) { v.res = columns })},
			next:     []version{with(v1, func(v *version) { v.res = strings.Replace(columns, "name: Size", "name: SIZE", 1) })},
			want:     []string{"warning printer-column-removed v1.yaml#/components/schemas/Thing/x-specd-resource/printerColumns/1 .spec.size"},
		},
		"printer column changed": {
			previous: []version{with(v1, func(v *version) { v.res = columns })},
			next:     []version{with(v1, func(v *version) { v.res = strings.Replace(columns, "jsonPath: .spec.color", "jsonPath: .spec.name", 1) })},
			want:     []string{"warning printer-column-changed v1.yaml#/components/schemas/Thing/x-specd-resource/printerColumns/0 .spec.name"},
		},
		"printer columns reordered": {
			previous: []version{with(v1, func(v *version) { v.res = columns })},
			next: []version{with(v1, func(v *version) {
				v.res = "printerColumns: [{name: Size, type: integer, jsonPath: .spec.size}, {name: Color, type: string, jsonPath: .spec.color}]"
			})},
			want: []string{"warning printer-column-changed v1.yaml#/components/schemas/Thing/x-specd-resource/printerColumns "},
		},
		"removed selectable field in beta": {
			previous: []version{with(spec("v1beta1", baseSpec), func(v *version) { v.res = "selectableFields: [{jsonPath: .spec.color}]" })},
			next:     []version{spec("v1beta1", baseSpec)},
			want:     []string{"error selectable-field-removed v1beta1.yaml#/components/schemas/Thing/x-specd-resource/selectableFields/0 .spec.color"},
		},
		"removed selectable field in alpha": {
			previous: []version{with(spec("v1alpha1", baseSpec), func(v *version) { v.res = "selectableFields: [{jsonPath: .spec.color}]" })},
			next:     []version{spec("v1alpha1", baseSpec)},
			want:     []string{"warning selectable-field-removed v1alpha1.yaml#/components/schemas/Thing/x-specd-resource/selectableFields/0 .spec.color"},
		},
		"unknown fields no longer preserved": {
			previous: []version{spec("v1", baseSpec+"\nconfig: {type: object, x-kubernetes-preserve-unknown-fields: true}")},
			next:     []version{spec("v1", baseSpec+"\nconfig: {type: object}")},
			want:     []string{"error unknown-fields-pruned v1.yaml#/components/schemas/Thing/properties/spec/properties/config .spec.config"},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			previous, next := writeDir(t, c.previous...), writeDir(t, c.next...)
			findings := Compare(loadDir(t, previous), loadDir(t, next))
			var got []string
			for _, f := range findings {
				if f.Message == "" || f.Resource != "things.test.example.com" {
					t.Errorf("finding without message or resource: %+v", f)
				}
				got = append(got, strings.Join([]string{string(f.Severity), f.Rule, filepath.Base(f.File) + "#" + f.Pointer, f.Field}, " "))
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
				for _, f := range findings {
					t.Logf("%s", f.Message)
				}
			}
		})
	}
}

// TestCompareUnchanged: a directory compared with itself has no finding,
// for the examples and for real CRDs (no false positives).
func TestCompareUnchanged(t *testing.T) {
	examples := loadDir(t, filepath.Join("..", "examples", "schemas"))
	if f := Compare(examples, examples); len(f) != 0 {
		t.Errorf("examples: %+v", f)
	}
	corpus := crdcorpus.Dir(t)
	for _, project := range []string{"cert-manager", "cluster-api"} {
		t.Run(project, func(t *testing.T) {
			dir := t.TempDir()
			crdcorpus.WriteSpecdFiles(t, dir, crdcorpus.Read(t, filepath.Join(corpus, project, "crds")))
			previous, next := loadDir(t, dir), loadDir(t, dir)
			if f := Compare(previous, next); len(f) != 0 {
				t.Errorf("%d findings, first %+v", len(f), f[0])
			}
		})
	}
}

// fakeStored answers StoredVersions from a table: resource -> version ->
// count; err fails every read.
type fakeStored struct {
	counts map[string]map[string]int64
	err    error
}

func (f fakeStored) StoredVersions(_ context.Context, res *schemas.Resource) (map[string]Stored, error) {
	if f.err != nil {
		return nil, f.err
	}
	out := map[string]Stored{}
	for v, n := range f.counts[res.GroupResource()] {
		out[v] = Stored{Count: n, Example: "default/thing-0"}
	}
	return out, nil
}

// TestCompareStored: with what is stored at hand, a removed version is an
// error only when objects are stored in it.
func TestCompareStored(t *testing.T) {
	v1beta1 := version{name: "v1beta1", storage: true, spec: baseSpec}
	v1 := version{name: "v1", spec: baseSpec}
	v1Storage := version{name: "v1", storage: true, spec: baseSpec}
	const res = "things.test.example.com"
	cases := map[string]struct {
		previous, next []version
		stored         StoredObjects
		want           []string // "severity rule version: message substring"
	}{
		"storage version removed, nothing stored": {
			previous: []version{v1beta1, v1}, next: []version{v1Storage},
			stored: fakeStored{counts: map[string]map[string]int64{res: {"v1": 4}}},
			want: []string{
				"warning storage-version-removed v1beta1: v1beta1, the storage version of things.test.example.com, is removed: no object is stored in it (read from etcd)",
				"error version-removed v1beta1: version v1beta1 of things.test.example.com is removed",
			},
		},
		"storage version removed, objects stored": {
			previous: []version{v1beta1, v1}, next: []version{v1Storage},
			stored: fakeStored{counts: map[string]map[string]int64{res: {"v1beta1": 3, "v1": 1}}},
			want: []string{
				"error storage-version-removed v1beta1: v1beta1 is removed but 3 object(s) of things.test.example.com are stored in it (default/thing-0 and 2 more)",
				"error version-removed v1beta1: ",
			},
		},
		"an earlier storage version removed, objects still stored": {
			previous: []version{v1Storage, {name: "v1beta1", spec: baseSpec}}, next: []version{v1Storage},
			stored: fakeStored{counts: map[string]map[string]int64{res: {"v1beta1": 1}}},
			want: []string{
				"error storage-version-removed v1beta1: v1beta1 is removed but 1 object(s) of things.test.example.com are stored in it (default/thing-0): ",
				"error version-removed v1beta1: ",
			},
		},
		"etcd cannot be read": {
			previous: []version{v1beta1, v1}, next: []version{v1Storage},
			stored: fakeStored{err: errors.New("context deadline exceeded")},
			want: []string{
				"error storage-version-removed v1beta1: v1beta1 is the storage version of things.test.example.com and is removed: objects stored in it could no longer be read, and whether there are any is unknown: context deadline exceeded",
				"error version-removed v1beta1: ",
			},
		},
		"an earlier storage version removed, etcd cannot be read": {
			previous: []version{v1Storage, {name: "v1beta1", spec: baseSpec}}, next: []version{v1Storage},
			stored: fakeStored{err: errors.New("context deadline exceeded")},
			want: []string{
				"error storage-version-removed v1beta1: v1beta1 of things.test.example.com is removed: objects still stored in it (from before a storage version change) could no longer be read, and whether there are any is unknown: context deadline exceeded",
				"error version-removed v1beta1: ",
			},
		},
		"without etcd": {
			previous: []version{v1beta1, v1}, next: []version{v1Storage},
			want: []string{
				"error storage-version-removed v1beta1: v1beta1 is the storage version of things.test.example.com and is removed: objects stored in it can no longer be read; keep it until they are migrated to v1 (specd check --etcd-servers tells whether any is stored)",
				"error version-removed v1beta1: ",
			},
		},
		"nothing removed: etcd is not read": {
			previous: []version{v1beta1, v1}, next: []version{v1beta1, v1},
			stored: fakeStored{err: errors.New("must not be read")},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			findings := CompareStored(t.Context(), loadDir(t, writeDir(t, c.previous...)), loadDir(t, writeDir(t, c.next...)), c.stored)
			if len(findings) != len(c.want) {
				t.Fatalf("%d findings, want %d: %+v", len(findings), len(c.want), findings)
			}
			for i, f := range findings {
				got := string(f.Severity) + " " + f.Rule + " " + f.Version + ": " + f.Message
				if !strings.HasPrefix(got, c.want[i]) {
					t.Errorf("finding %d:\n got %s\nwant %s...", i, got, c.want[i])
				}
			}
		})
	}
}
