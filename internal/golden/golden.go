package golden

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// update is the -update flag of every test binary that imports this
// package: `go test ./schemas -run TestGolden -update` rewrites the
// expected output of the golden files it runs.
var update = flag.Bool("update", false, "rewrite the expected output of the golden files in testdata")

// Run runs one subtest per archive that pattern (a filepath.Glob pattern)
// matches, named after the file without ".txtar". render returns the
// case's output from its archive; it is compared with the archive's file
// named want, and with -update the archive is written again with
// render's output as want instead. A pattern that matches nothing fails
// the test.
func Run(t *testing.T, pattern, want string, render func(t *testing.T, a *Archive) string) {
	t.Helper()
	paths, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no golden files match %s", pattern)
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			a := Parse(data)
			got := withNewline(render(t, a))
			if *update {
				a.Set(want, got)
				if err := os.WriteFile(path, Format(a), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			expected, ok := a.File(want)
			if !ok {
				t.Fatalf("%s has no file %q (run the test with -update to write it)", path, want)
			}
			if diff := cmp.Diff(strings.Split(expected, "\n"), strings.Split(got, "\n")); diff != "" {
				t.Errorf("%s: %s differs (-want +got), run the test with -update if the change is right:\n%s", path, want, diff)
			}
		})
	}
}

// Inputs returns a's files except the one named want.
func Inputs(a *Archive, want string) []File {
	var in []File
	for _, f := range a.Files {
		if f.Name != want {
			in = append(in, f)
		}
	}
	return in
}
