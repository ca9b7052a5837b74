package main

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specd-io/specd/plugins"
	"github.com/specd-io/specd/schemas"
)

// pluginsDir makes a plugins directory holding executables of these names.
func pluginsDir(t *testing.T, names ...string) string {
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
	examples := filepath.Join("..", "..", "examples", "schemas")
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
			cfg := serveConfig{}
			if !tt.noDir {
				cfg.Plugins = pluginsDir(t, tt.plugins...)
			}
			p, err := openPlugins(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			err = p.checkBindings(reg)
			var got []string
			var le *schemas.LoadError
			if errors.As(err, &le) {
				for _, pr := range le.Problems {
					line := pr.String()
					if cfg.Plugins != "" {
						line = strings.ReplaceAll(line, cfg.Plugins, "DIR")
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

func TestHealthError(t *testing.T) {
	tests := map[string]struct {
		h    plugins.PluginHealth
		want string
	}{
		"idle":       {plugins.PluginHealth{State: "idle"}, ""},
		"running":    {plugins.PluginHealth{State: "running", Running: true, Restarts: 2, LastError: "old"}, ""},
		"restarting": {plugins.PluginHealth{State: "restarting", Restarts: 3, LastError: "signal: killed"}, "restarting after 3 restarts: signal: killed"},
		"failed":     {plugins.PluginHealth{State: "failed", Restarts: 1, LastError: "exec format error"}, "failed after 1 restarts: exec format error"},
	}
	for name, tt := range tests {
		err := healthError(tt.h)
		if (err == nil) != (tt.want == "") || (err != nil && err.Error() != tt.want) {
			t.Errorf("%s: %v, want %q", name, err, tt.want)
		}
	}
}

func TestParseReconcileWorkers(t *testing.T) {
	cfg, err := parseServeFlags([]string{"--schemas", "s", "--reconcile-workers", "5"}, io.Discard)
	if err != nil || cfg.ReconcileWorkers != 5 {
		t.Errorf("--reconcile-workers 5: %d, %v", cfg.ReconcileWorkers, err)
	}
	if _, err := parseServeFlags([]string{"--schemas", "s", "--reconcile-workers", "-1"}, io.Discard); err == nil {
		t.Error("--reconcile-workers -1 accepted")
	}
}
