package server

import (
	"flag"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// TestVersionReportGolden: `specd version -o json` and `-o yaml` of a
// build stamped with everything, against testdata/version.golden.*.
func TestVersionReportGolden(t *testing.T) {
	bi := &debug.BuildInfo{Deps: []*debug.Module{{Path: apiMachinery, Version: "v0.37.2"}}}
	b := Build{Version: "v0.2.0", Commit: "0123456789abcdef0123456789abcdef01234567", TreeState: "clean", Date: "2026-01-02T03:04:05Z"}
	r := reportOf(bi, b, "go1.26.8", "gc", "linux/amd64")
	for _, output := range []string{"json", "yaml"} {
		got, err := r.Format(output)
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", "version.golden."+output)
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("-o %s:\n%s\nwant (%s; -update rewrites it):\n%s", output, got, golden, want)
		}
	}
	if _, err := r.Format("xml"); err == nil || err.Error() != `--output "xml": want json or yaml` {
		t.Errorf("-o xml: %v", err)
	}
}
