package converters_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/converters"
	"github.com/specd-io/specd/internal/golden"
	"github.com/specd-io/specd/schemas"
)

// TestGoldenRules loads the schema directory of each
// testdata/rules/*.txtar (its files outside objects/, but for "want"),
// compiles its conversion rules as specd serve does, and converts each
// object of objects/ to every other version of its kind and back. The
// converted objects, their bookkeeping annotation and the way back, or the
// problems, are compared with the archive's "want" file.
// go test ./converters -run TestGolden -update rewrites the "want" files.
func TestGoldenRules(t *testing.T) {
	golden.Run(t, "testdata/rules/*.txtar", "want", func(t *testing.T, a *golden.Archive) string {
		fsys := fstest.MapFS{}
		var objects []golden.File
		for _, f := range golden.Inputs(a, "want") {
			if strings.HasPrefix(f.Name, "objects/") {
				objects = append(objects, f)
				continue
			}
			fsys[f.Name] = &fstest.MapFile{Data: []byte(f.Data)}
		}
		reg, err := schemas.LoadFS(fsys)
		if err != nil {
			return "schema " + renderProblems(t, err)
		}
		set, err := converters.NewSet(reg, converters.DeclaredRules)
		if err != nil {
			return "conversion " + renderProblems(t, err)
		}
		var b strings.Builder
		for i, f := range objects {
			if i > 0 {
				b.WriteString("\n")
			}
			renderConversions(t, &b, reg, set, f)
		}
		return b.String()
	})
}

func renderProblems(t *testing.T, err error) string {
	t.Helper()
	var le *schemas.LoadError
	if !errors.As(err, &le) {
		t.Fatalf("error is %T (%v), want *schemas.LoadError", err, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "problems: %d\n", len(le.Problems))
	for _, p := range le.Problems {
		b.WriteString(p.String() + "\n")
	}
	return b.String()
}

// renderConversions converts the object of f to every other version of its
// kind and back to its own version.
func renderConversions(t *testing.T, b *strings.Builder, reg *schemas.Registry, set *converters.Set, f golden.File) {
	t.Helper()
	in := []byte(f.Data)
	from := gjson.GetBytes(in, "apiVersion").String()
	group, version, _ := strings.Cut(from, "/")
	g := reg.Group(group)
	if g == nil {
		t.Fatalf("%s: apiVersion %q: no such group", f.Name, from)
	}
	res := resourceOfKind(g, gjson.GetBytes(in, "kind").String())
	if res == nil {
		t.Fatalf("%s: no kind %q in group %s", f.Name, gjson.GetBytes(in, "kind").String(), group)
	}
	for _, rv := range res.Versions {
		if rv.Version == version {
			continue
		}
		to := rv.APIVersion()
		fmt.Fprintf(b, "== %s: %s -> %s\n", path.Base(f.Name), from, to)
		out, err := set.Convert(in, to)
		if err != nil {
			fmt.Fprintf(b, "error: %v\n", err)
			continue
		}
		obj, kept, err := converters.SplitBookkeeping(out)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		b.WriteString(pretty(t, obj))
		if kept == "" {
			b.WriteString("bookkeeping: none\n")
		} else {
			b.WriteString("bookkeeping:\n" + pretty(t, []byte(kept)))
		}
		back, err := set.Convert(out, from)
		switch {
		case err != nil:
			fmt.Fprintf(b, "back to %s: error: %v\n", from, err)
		case sameJSON(t, back, in):
			fmt.Fprintf(b, "back to %s: the same object\n", from)
		default:
			fmt.Fprintf(b, "back to %s: a different object\n%s", from, pretty(t, back))
		}
	}
}

func resourceOfKind(g *schemas.Group, kind string) *schemas.Resource {
	for _, res := range g.Resources {
		if res.Kind == kind {
			return res
		}
	}
	return nil
}

// pretty indents JSON with sorted keys, so that the expected output does
// not depend on the order in which the converter wrote the fields.
func pretty(t *testing.T, data []byte) string {
	t.Helper()
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(decode(t, data)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func decode(t *testing.T, data []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, data)
	}
	return v
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	return reflect.DeepEqual(decode(t, a), decode(t, b))
}
