package check

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// version is one version of the test resource Thing of test.example.com.
type version struct {
	name    string
	storage bool
	spec    string // YAML of the spec schema's properties, indented 0
	extra   string // YAML of more spec schema keywords (required: [...]), indented 0
	res     string // YAML of more x-specd-resource fields, indented 0
	root    string // YAML of more root schema keywords, indented 0
}

// writeDir writes one schema file per version into a new directory.
func writeDir(t *testing.T, versions ...version) string {
	t.Helper()
	dir := t.TempDir()
	for _, v := range versions {
		res := "storage: " + fmt.Sprint(v.storage)
		if v.res != "" {
			res += "\n" + v.res
		}
		doc := fmt.Sprintf(`openapi: 3.0.3
info:
  title: Test
  version: %s
x-specd:
  group: test.example.com
components:
  schemas:
    Thing:
      type: object
%s
      x-specd-resource:
%s
      properties:
        spec:
          type: object
%s
          properties:
%s
`, v.name, indent(v.root, 6), indent(res, 8), indent(v.extra, 10), indent(v.spec, 12))
		if err := os.WriteFile(filepath.Join(dir, v.name+".yaml"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func indent(s string, n int) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	pad := strings.Repeat(" ", n)
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = pad + l
	}
	return strings.Join(lines, "\n")
}
