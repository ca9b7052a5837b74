package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/specd-io/specd/server"
)

func TestVersionCommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"version", "-o", "json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("specd version -o json: exit %d\n%s", code, stderr.String())
	}
	var r server.VersionReport
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("specd version -o json is not a VersionReport: %v\n%s", err, stdout.String())
	}
	if r.SpecdVersion == "" || !strings.HasPrefix(r.ServerVersion.GitVersion, "v1.") || r.ServerVersion.Platform == "" {
		t.Errorf("specd version -o json: %+v", r)
	}
	for _, args := range [][]string{{"version", "--bogus"}, {"version", "-o", "xml"}, {"version", "extra"}} {
		stdout.Reset()
		stderr.Reset()
		code := run(t.Context(), args, &stdout, &stderr)
		if lines := strings.Count(stderr.String(), "\n"); code != 2 || lines != 1 || !strings.Contains(stderr.String(), strings.TrimLeft(args[len(args)-1], "-")) {
			t.Errorf("specd %s: exit %d, stderr %q; want exit 2 and one line naming %q", strings.Join(args, " "), code, stderr.String(), args[len(args)-1])
		}
	}
}
