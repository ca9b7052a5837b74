package chart

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"
)

// valuesBlock is a YAML block of docs/deploy.md marked as chart values.
var valuesBlock = regexp.MustCompile("(?s)<!-- chart-values -->\n```yaml\n(.*?)```")

// TestDeployDocValues renders every example of values in docs/deploy.md,
// so that the page cannot show values the chart refuses.
func TestDeployDocValues(t *testing.T) {
	page := filepath.Join(repoRoot, "docs", "deploy.md")
	md, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	blocks := valuesBlock.FindAllStringSubmatchIndex(string(md), -1)
	if len(blocks) < 7 {
		t.Fatalf("%s has %d blocks of chart values; the test expects the page's examples", page, len(blocks))
	}
	for _, b := range blocks {
		line := strings.Count(string(md[:b[0]]), "\n") + 1
		var values map[string]any
		if err := sigsyaml.Unmarshal(md[b[2]:b[3]], &values); err != nil {
			t.Errorf("docs/deploy.md:%d: %v", line, err)
			continue
		}
		out, err := template(t, values)
		if err != nil {
			t.Errorf("docs/deploy.md:%d: %v", line, err)
			continue
		}
		if objs := decode(t, out); !objs.has("StatefulSet") && !objs.has("Deployment") {
			t.Errorf("docs/deploy.md:%d renders no StatefulSet or Deployment: %v", line, objs.names())
		}
	}
}
