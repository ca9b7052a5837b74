package converters

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/specd-io/specd/schemas"
)

var fence = regexp.MustCompile("(?s)```(yaml|json)\n(.*?)```")

// docSection is the part of docs/conversion.md under the heading "## title".
func docSection(t *testing.T, title string) string {
	t.Helper()
	doc, err := os.ReadFile("../docs/conversion.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "\n## "+title+"\n")
	if !ok {
		t.Fatalf("docs/conversion.md has no section %q", title)
	}
	section, _, _ := strings.Cut(rest, "\n## ")
	return section
}

// docBlocks returns the schema files (YAML blocks that start with
// "openapi:") and the JSON blocks of a section, in order.
func docBlocks(section string) (files, objs []string) {
	for _, m := range fence.FindAllStringSubmatch(section, -1) {
		switch {
		case m[1] == "yaml" && strings.HasPrefix(m[2], "openapi:"):
			files = append(files, m[2])
		case m[1] == "json":
			objs = append(objs, m[2])
		}
	}
	return files, objs
}

// loadDocSet writes a section's schema files to a directory and loads it
// as specd serve does: the schemas loader, then NewSet.
func loadDocSet(t *testing.T, files []string) *Set {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		v := gjson.GetBytes(yamlJSON(t, f), "info.version").Str
		if err := os.WriteFile(filepath.Join(dir, v+".yaml"), []byte(f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	reg, err := schemas.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	set, err := NewSet(reg, DeclaredRules)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestDocsWorkedExample runs the Frobber example of docs/conversion.md:
// its schema files, rules and objects are the ones converted here.
func TestDocsWorkedExample(t *testing.T) {
	files, objs := docBlocks(docSection(t, "Worked example: the Frobber"))
	if len(files) != 2 || len(objs) != 4 {
		t.Fatalf("found %d schema files and %d objects, want 2 and 4", len(files), len(objs))
	}
	res := &schemas.Resource{Group: "frobs.example.com", Kind: "Frobber", StorageVersion: "v2"}
	var rules []any
	for i, f := range files {
		doc := yamlJSON(t, f)
		v := gjson.GetBytes(doc, "info.version").Str
		frob := gjson.GetBytes(doc, "components.schemas.Frobber")
		var s openapi3.Schema
		if err := json.Unmarshal([]byte(frob.Raw), &s); err != nil {
			t.Fatal(err)
		}
		res.Versions = append(res.Versions, &schemas.ResourceVersion{Resource: res, Version: v, Storage: i == 0, OpenAPI: &s})
		if r := frob.Get("x-specd-resource.conversion.rules"); r.Exists() {
			_ = json.Unmarshal([]byte(r.Raw), &rules)
		}
	}
	r, probs := Compile(res.Version("v1"), res.Version("v2"), rules, "v1.yaml", "/rules")
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	convert := func(o, to string) string {
		t.Helper()
		var out []byte
		var err error
		if to == "v2" {
			out, err = r.ToHub([]byte(o), "frobs.example.com/v2")
		} else {
			out, err = r.FromHub([]byte(o), "frobs.example.com/v1")
		}
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	mustEqualJSON(t, "stored", convert(objs[0], "v2"), objs[1])
	v1 := convert(objs[2], "v1")
	mustEqualJSON(t, "read in v1", v1, objs[3])
	edited, _ := sjson.Set(v1, "spec.height", 12)
	want, _ := sjson.Set(objs[2], "spec.heightInInches", 12)
	mustEqualJSON(t, "written back in v1", convert(edited, "v2"), want)
}

// TestDocsExampleLoads loads the example's schema files with the schemas
// loader, as specd serve does, and converts through the resulting Set.
func TestDocsExampleLoads(t *testing.T) {
	files, objs := docBlocks(docSection(t, "Worked example: the Frobber"))
	set := loadDocSet(t, files)
	got, err := set.Convert([]byte(objs[0]), "frobs.example.com/v2")
	if err != nil {
		t.Fatal(err)
	}
	mustEqualJSON(t, "stored", string(got), objs[1])
	if got, err = set.Convert([]byte(objs[2]), "frobs.example.com/v1"); err != nil {
		t.Fatal(err)
	}
	mustEqualJSON(t, "read in v1", string(got), objs[3])
}

// TestDocsListenersExample runs the listeners example of docs/conversion.md
// as the engine runs a read and a write: the v1 client sees the object
// without the bookkeeping, which goes back on what it writes.
func TestDocsListenersExample(t *testing.T) {
	files, objs := docBlocks(docSection(t, "Worked example: listeners"))
	if len(files) != 2 || len(objs) != 6 {
		t.Fatalf("found %d schema files and %d objects, want 2 and 6", len(files), len(objs))
	}
	set := loadDocSet(t, files)
	convert := func(o, to string) []byte {
		t.Helper()
		out, err := set.Convert([]byte(o), "net.example.com/"+to)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	mustEqualJSON(t, "stored", string(convert(objs[0], "v2")), objs[1])
	read, bk, err := SplitBookkeeping(convert(objs[2], "v1"))
	if err != nil {
		t.Fatal(err)
	}
	mustEqualJSON(t, "read in v1", string(read), objs[3])
	if bk == "" {
		t.Fatal("nothing kept for v2")
	}
	written, err := sjson.Set(objs[4], "metadata.annotations."+gjson.Escape(Annotation), bk)
	if err != nil {
		t.Fatal(err)
	}
	mustEqualJSON(t, "stored after the v1 write", string(convert(written, "v2")), objs[5])
}

// TestDocsElementRules compiles the rule lists of "Rules inside list
// elements" against schemas that have their fields, and round-trips an
// object through them.
func TestDocsElementRules(t *testing.T) {
	var lists []string
	for _, m := range fence.FindAllStringSubmatch(docSection(t, "Rules inside list elements"), -1) {
		if m[1] == "yaml" {
			lists = append(lists, m[2])
		}
	}
	if len(lists) != 2 {
		t.Fatalf("found %d rule lists, want 2", len(lists))
	}
	list := func(item string) string { return `{type: array, items: {type: object, properties: ` + item + `}}` }
	res := resource(t, "Frobber", "v2", map[string]string{
		"v1": specSchema(`{ports: ` + list(`{portName: {type: string}, protocol: {type: string}, host: {type: string}, port: {type: integer}}`) + `,
			modes: {type: array, items: {type: string}}, routes: ` + list(`{host: {type: string}}`) + `,
			groups: ` + list(`{members: `+list(`{id: {type: string}}`)+`}`) + `}`),
		"v2": specSchema(`{ports: ` + list(`{name: {type: string}, protocol: {type: string}, appProtocol: {type: string},
				target: {type: object, properties: {host: {type: string}, port: {type: integer}}}}`) + `,
			modes: {type: array, items: {type: string}}, routes: ` + list(`{hosts: {type: array, items: {type: string}}}`) + `,
			groups: ` + list(`{members: `+list(`{uid: {type: string}}`)+`}`) + `,
			listeners: ` + list(`{name: {type: string}}`) + `}`),
	})
	v1 := obj("v1", `,"spec":{"ports":[{"portName":"a","protocol":"tcp","host":"h","port":1}],"modes":["fast","slow"],`+
		`"routes":[{"host":"x"}],"groups":[{"members":[{"id":"m"}]}]}`)
	for i, rules := range lists {
		var doc struct {
			Rules []any `json:"rules"`
		}
		if err := json.Unmarshal(yamlJSON(t, rules), &doc); err != nil {
			t.Fatal(err)
		}
		r, probs := Compile(res.Version("v1"), res.Version("v2"), doc.Rules, "v1.yaml", "/rules")
		if len(probs) > 0 {
			t.Fatalf("rule list %d: %v", i, probs)
		}
		if p, err := r.RoundTrip([]byte(v1)); err != nil {
			t.Errorf("rule list %d: at %q: %v", i, p, err)
		}
	}
}
