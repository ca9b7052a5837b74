package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specd-io/specd/test/conformance"
)

// TestWritePassing: the passing tests are written, but the [Flaky] ones
// and those that do not pass.
func TestWritePassing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "passing.txt")
	rows := []conformance.Row{
		{Name: "[sig-x] a passes", Verdict: conformance.Passes},
		{Name: "[sig-x] b passes at times. [Flaky]", Verdict: conformance.Passes},
		{Name: "[sig-x] c fails", Verdict: conformance.Fails},
	}
	if err := writePassing(path, rows); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.TrimPrefix(string(b), passingHeader)
	if got != "[sig-x] a passes\n" {
		t.Errorf("passing.txt lists %q, want the test that passes and is not [Flaky]", got)
	}
}
