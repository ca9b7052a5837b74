package plugins

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/schemas"
)

// scriptsDir makes a plugins directory holding executables of these names.
func scriptsDir(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCheckBindings(t *testing.T) {
	examples := filepath.Join("..", "examples", "schemas")
	fleetFile := filepath.Join(examples, "fleet.example.com", "v1.yaml")
	tests := map[string]struct {
		plugins []string
		noDir   bool
		disable []string
		want    []string // problems, as Problem.String
	}{
		"every plugin there": {plugins: []string{"ship-policy", "fleet-controller"}},
		"one missing": {
			plugins: []string{"ship-policy"},
			want:    []string{fleetFile + `#/components/schemas/Fleet/x-specd-hooks/reconcile: reconcile plugin "fleet-controller": the plugins directory DIR has no executable of that name`},
		},
		// No directory is no plugins, as kube-apiserver without its
		// webhooks: served, and each binding logged (TestNoPluginsDir).
		"no --plugins":                   {noDir: true},
		"a disabled group binds nothing": {noDir: true, disable: []string{"fleet.example.com"}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			reg, err := schemas.Load(examples)
			if err != nil {
				t.Fatal(err)
			}
			if reg, err = reg.Disable(tt.disable...); err != nil {
				t.Fatal(err)
			}
			dir := ""
			if !tt.noDir {
				dir = scriptsDir(t, tt.plugins...)
			}
			h, _ := newHost(t, dir, nil)
			err = h.cfg.Catalog.CheckBindings(reg)
			var got []string
			var le *schemas.LoadError
			if errors.As(err, &le) {
				for _, pr := range le.Problems {
					line := pr.String()
					if dir != "" {
						line = strings.ReplaceAll(line, dir, "DIR")
					}
					got = append(got, line)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("problems\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestNoPluginsDir: without --plugins, a registry binding plugins is not
// refused; each binding is logged with its file and pointer, and a call
// to the plugin fails naming why, so a write's failurePolicy decides.
func TestNoPluginsDir(t *testing.T) {
	reg, err := schemas.Load(filepath.Join("..", "examples", "schemas"))
	if err != nil {
		t.Fatal(err)
	}
	h, logs := newHost(t, "", nil)
	if err := h.cfg.Catalog.CheckBindings(reg); err != nil {
		t.Fatalf("CheckBindings without a plugins directory: %v", err)
	}
	for _, ptr := range []string{"Fleet/x-specd-hooks/reconcile", "Ship/x-specd-hooks/default", "Ship/x-specd-hooks/validate"} {
		if got := logs.lines(`"level":"WARN"`, "no --plugins directory was given", ptr); len(got) != 1 {
			t.Errorf("want one warning naming %s, got %q in\n%s", ptr, got, logs.String())
		}
	}
	_, err = h.Validate(t.Context(), "ship-policy", hook.AdmissionRequest{})
	var ce *CallError
	if !errors.As(err, &ce) || !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "no --plugins directory was given") {
		t.Errorf("a call without a plugins directory: %v; want a CallError wrapping ErrNotFound that names the cause", err)
	}
}
