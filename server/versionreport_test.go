package server

import (
	"cmp"
	"encoding/json"
	"runtime/debug"
	"testing"

	"github.com/specd-io/specd/internal/golden"
)

// TestVersionReportGolden: `specd version -o json`, `-o yaml` and
// `specd version` of the build stamp in each testdata/version/*.txtar
// (build.json), against its report.json, report.yaml and report.txt.
func TestVersionReportGolden(t *testing.T) {
	for _, output := range []string{"json", "yaml", ""} {
		golden.Run(t, "testdata/version/*.txtar", "report."+cmp.Or(output, "txt"), func(t *testing.T, a *golden.Archive) string {
			return versionReport(t, a, output)
		})
	}
	r := reportOf(nil, Build{Version: "v0.2.0"}, "go1.26.8", "gc", "linux/amd64")
	if _, err := r.Format("xml"); err == nil || err.Error() != `--output "xml": want json or yaml` {
		t.Errorf("-o xml: %v", err)
	}
}

func versionReport(t *testing.T, a *golden.Archive, output string) string {
	t.Helper()
	stamp, ok := a.File("build.json")
	if !ok {
		t.Fatal("no build.json")
	}
	var b Build
	if err := json.Unmarshal([]byte(stamp), &b); err != nil {
		t.Fatalf("build.json: %v", err)
	}
	bi := &debug.BuildInfo{Deps: []*debug.Module{{Path: apiMachinery, Version: "v0.37.2"}}}
	out, err := reportOf(bi, b, "go1.26.8", "gc", "linux/amd64").Format(output)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
