package schemas_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/specd-io/specd/internal/golden"
	"github.com/specd-io/specd/schemas"
)

// TestGoldenCompile loads the schema directory of each
// testdata/compile/*.txtar (every file but "want") and compares a text
// rendering of the Registry, or of the problems, with its "want" file.
// go test ./schemas -run TestGolden -update rewrites the "want" files.
func TestGoldenCompile(t *testing.T) {
	golden.Run(t, "testdata/compile/*.txtar", "want", func(t *testing.T, a *golden.Archive) string {
		reg, err := schemas.LoadFS(archiveFS(a))
		if err != nil {
			return renderLoadError(t, err)
		}
		return renderRegistry(reg)
	})
}

func archiveFS(a *golden.Archive) fstest.MapFS {
	fsys := fstest.MapFS{}
	for _, f := range golden.Inputs(a, "want") {
		fsys[f.Name] = &fstest.MapFile{Data: []byte(f.Data)}
	}
	return fsys
}

func renderLoadError(t *testing.T, err error) string {
	t.Helper()
	var le *schemas.LoadError
	if !errors.As(err, &le) {
		t.Fatalf("LoadFS error is %T (%v), want *schemas.LoadError", err, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "problems: %d\n", len(le.Problems))
	for _, p := range le.Problems {
		b.WriteString(p.String() + "\n")
	}
	return b.String()
}

// renderRegistry writes every group of reg: its versions in priority
// order, then each resource with its names and each of its versions.
func renderRegistry(reg *schemas.Registry) string {
	w := &writer{}
	for _, g := range reg.Groups() {
		w.line(0, "group %s", g.Name)
		if pv := g.PreferredVersion(); pv != nil {
			w.line(1, "preferred version: %s", pv.Version)
		}
		for _, gv := range g.Versions {
			w.line(1, "version %s: file %s%s, resources %s", gv.Version, gv.File,
				flagIf(gv.AllowBreaking, ", allowBreaking"), gvResources(gv))
		}
		for _, res := range g.Resources {
			renderResource(w, res)
		}
	}
	return w.String()
}

func gvResources(gv *schemas.GroupVersion) string {
	var names []string
	for _, rv := range gv.Resources {
		names = append(names, rv.Resource.Plural+flagIf(!rv.Served(), " (not served)"))
	}
	return "[" + strings.Join(names, ", ") + "]"
}

func renderResource(w *writer, res *schemas.Resource) {
	w.line(1, "resource %s", res.GroupResource())
	w.line(2, "kind: %s, listKind: %s, singular: %s, plural: %s", res.Kind, res.ListKind, res.Singular, res.Plural)
	w.line(2, "scope: %s, storage version: %s", res.Scope, res.StorageVersion)
	if res.StoredWith != nil {
		w.line(2, "stored with: %s (objects in %s)", res.StoredWith.GroupResource(), res.StorageAPIVersion())
	}
	if len(res.ShortNames) > 0 {
		w.line(2, "shortNames: %s", strings.Join(res.ShortNames, ", "))
	}
	if len(res.Categories) > 0 {
		w.line(2, "categories: %s", strings.Join(res.Categories, ", "))
	}
	if res.Verbs != nil {
		w.line(2, "verbs: %s", strings.Join(res.Verbs, ", "))
	}
	for _, rv := range res.Versions {
		renderVersion(w, rv)
	}
}

func renderVersion(w *writer, rv *schemas.ResourceVersion) {
	w.line(2, "version %s: %s#%s%s%s", rv.Version, rv.File, rv.Pointer,
		flagIf(rv.Storage, ", storage"), flagIf(!rv.Served(), ", not served"))
	if rv.Deprecated {
		w.line(3, "deprecated: %q", rv.DeprecationWarning)
	}
	var subs []string
	if rv.StatusSubresource {
		subs = append(subs, "status")
	}
	if s := rv.Scale; s != nil {
		subs = append(subs, fmt.Sprintf("scale (specReplicas %s, statusReplicas %s, labelSelector %q)",
			s.SpecReplicasPath, s.StatusReplicasPath, s.LabelSelectorPath))
	}
	if len(subs) > 0 {
		w.line(3, "subresources: %s", strings.Join(subs, ", "))
	}
	for _, c := range rv.PrinterColumns {
		w.line(3, "printer column %q: type %s, format %q, jsonPath %s, priority %d, description %q",
			c.Name, c.Type, c.Format, c.JSONPath, c.Priority, c.Description)
	}
	for _, f := range rv.SelectableFields {
		w.line(3, "selectable field: %s", f.JSONPath)
	}
	if h := rv.Hooks; h != nil {
		w.line(3, "hooks at %s#%s: failurePolicy %s, timeout %s", h.File, h.Pointer, h.FailurePolicy, h.Timeout)
		for _, p := range h.Plugins() {
			w.line(4, "%s: plugin %s at %s", p.Hook, p.Plugin, p.Pointer)
		}
	}
	if rv.ConversionPointer != "" || rv.ConversionRules != nil {
		rules, _ := json.Marshal(rv.ConversionRules)
		w.line(3, "conversion rules at %s: %s", rv.ConversionPointer, rules)
	}
	if rv.Schema == nil {
		w.line(3, "no compiled schema")
	}
	if rv.OpenAPI != nil {
		w.line(3, "fields:")
		renderFields(w, 4, "", rv.OpenAPI)
	}
}

// renderFields lists the fields of s, one line each: its path, type and
// format, and whether it is required, defaulted or an enum.
func renderFields(w *writer, depth int, path string, s *openapi3.Schema) {
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		ref := s.Properties[name]
		if ref == nil || ref.Value == nil {
			w.line(depth, "%s: unresolved", join(path, name))
			continue
		}
		renderField(w, depth, join(path, name), ref.Value, contains(s.Required, name))
	}
	if s.Items != nil && s.Items.Value != nil {
		renderField(w, depth, path+"[*]", s.Items.Value, false)
	}
}

func renderField(w *writer, depth int, path string, s *openapi3.Schema, required bool) {
	var parts []string
	if s.Type != nil && len(*s.Type) > 0 {
		parts = append(parts, strings.Join(*s.Type, "|"))
	}
	if s.Format != "" {
		parts = append(parts, "format "+s.Format)
	}
	if required {
		parts = append(parts, "required")
	}
	if s.Default != nil {
		d, _ := json.Marshal(s.Default)
		parts = append(parts, "default "+string(d))
	}
	if len(s.Enum) > 0 {
		e, _ := json.Marshal(s.Enum)
		parts = append(parts, "enum "+string(e))
	}
	for _, ext := range []string{"x-kubernetes-preserve-unknown-fields", "x-kubernetes-int-or-string", "x-kubernetes-embedded-resource"} {
		if v, ok := s.Extensions[ext]; ok && v == true {
			parts = append(parts, ext)
		}
	}
	w.line(depth, "%s: %s", path, strings.Join(parts, ", "))
	renderFields(w, depth, path, s)
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func flagIf(b bool, s string) string {
	if b {
		return s
	}
	return ""
}

// writer builds indented lines, two spaces a level.
type writer struct{ b strings.Builder }

func (w *writer) line(depth int, format string, args ...any) {
	w.b.WriteString(strings.Repeat("  ", depth))
	fmt.Fprintf(&w.b, format, args...)
	w.b.WriteByte('\n')
}

func (w *writer) String() string { return w.b.String() }
