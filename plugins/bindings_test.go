package plugins

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		"no --plugins": {
			noDir: true,
			want: []string{
				fleetFile + `#/components/schemas/Fleet/x-specd-hooks/reconcile: reconcile plugin "fleet-controller": no --plugins directory was given`,
				fleetFile + `#/components/schemas/Ship/x-specd-hooks/default: default plugin "ship-policy": no --plugins directory was given`,
				fleetFile + `#/components/schemas/Ship/x-specd-hooks/validate: validate plugin "ship-policy": no --plugins directory was given`,
			},
		},
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
