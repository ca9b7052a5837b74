package docs

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/specd-io/specd/test/e2e/harness"
)

// TestExampleObjects creates every file of examples/objects at once, as
// `kubectl create -f examples/objects/` does after `make run`, against
// specd serving the schema directory the Makefile's run target serves.
// An object that needs another schema directory belongs in a folder of
// its own (examples/objects/scale), which a create of the folder skips.
func TestExampleObjects(t *testing.T) {
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: filepath.Join(harness.RepoRoot, makeRunSchemas(t))})
	k := harness.NewKubectl(t, s)
	dir, err := filepath.Abs(filepath.Join(harness.RepoRoot, "examples", "objects"))
	if err != nil {
		t.Fatal(err)
	}
	out := k.OK(t, "create", "-f", dir)
	want := createdLines(t, dir)
	got := strings.Split(strings.TrimSpace(out), "\n")
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("kubectl create -f examples/objects/:\n got %q\nwant %q", got, want)
	}
}

// makeRunSchemas is the --schemas directory of the Makefile's run target.
func makeRunSchemas(t *testing.T) string {
	t.Helper()
	mk, err := os.ReadFile(filepath.Join(harness.RepoRoot, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^run:.*\n((?:\t.*\n)+)`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile has no run target")
	}
	args := strings.Fields(string(m[1]))
	i := slices.Index(args, "--schemas")
	if i < 0 || i+1 == len(args) {
		t.Fatalf("the Makefile's run target passes no --schemas:\n%s", m[1])
	}
	return args[i+1]
}

// createdLines is what kubectl prints for creating the objects of the
// YAML files in dir ("widget.shop.example.com/small created"), sorted.
func createdLines(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	var lines []string
	for _, f := range files {
		for _, doc := range yamlDocs(t, f) {
			var obj struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
				Metadata   struct {
					Name string `json:"name"`
				} `json:"metadata"`
			}
			if err := yaml.Unmarshal(doc, &obj); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			group, _, _ := strings.Cut(obj.APIVersion, "/")
			lines = append(lines, strings.ToLower(obj.Kind)+"."+group+"/"+obj.Metadata.Name+" created")
		}
	}
	if len(lines) == 0 {
		t.Fatalf("no objects in %s", dir)
	}
	slices.Sort(lines)
	return lines
}

// yamlDocs returns the documents of a multi-document YAML file.
func yamlDocs(t *testing.T, file string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(string(data))))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if len(strings.TrimSpace(string(doc))) > 0 {
			docs = append(docs, doc)
		}
	}
}
