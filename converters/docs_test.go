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

// TestDocsWorkedExample runs the Frobber example of docs/conversion.md:
// its schema files, rules and objects are the ones converted here.
func TestDocsWorkedExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/conversion.md")
	if err != nil {
		t.Fatal(err)
	}
	var files, objs []string
	for _, m := range fence.FindAllStringSubmatch(string(doc), -1) {
		switch {
		case m[1] == "yaml" && strings.HasPrefix(m[2], "openapi:"):
			files = append(files, m[2])
		case m[1] == "json":
			objs = append(objs, m[2])
		}
	}
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
	doc, err := os.ReadFile("../docs/conversion.md")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var objs []string
	for _, m := range fence.FindAllStringSubmatch(string(doc), -1) {
		if m[1] == "json" {
			objs = append(objs, m[2])
		}
		if m[1] == "yaml" && strings.HasPrefix(m[2], "openapi:") {
			v := gjson.GetBytes(yamlJSON(t, m[2]), "info.version").Str
			if err := os.WriteFile(filepath.Join(dir, v+".yaml"), []byte(m[2]), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	reg, err := schemas.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	set, err := NewSet(reg, func(rv *schemas.ResourceVersion) ([]any, string) {
		return rv.ConversionRules, rv.ConversionPointer
	})
	if err != nil {
		t.Fatal(err)
	}
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
