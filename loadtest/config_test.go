package loadtest

import (
	"context"
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/specd-io/specd/internal/cliflag"
)

// command runs `specd bench` with args and returns its exit code.
func command(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return cliflag.Execute(ctx, NewCommand(), args, stdout, stderr)
}

func TestDefaultConfig(t *testing.T) {
	cfg := DefaultConfig()
	want := Config{
		Server: "http://127.0.0.1:8080", Group: "bench.specd.io", Version: "v1", Resource: "payloads",
		Kind: "Payload", Namespace: "bench", Objects: 10000, Concurrency: 16, PageSize: 500, ListRepeat: 3,
		Fields: 20, FieldSize: 70, MaxRetries: 10, CRDs: 1000, CRDStep: 100, CRDGroups: "one",
		Output: "text", Timeout: 30 * time.Minute, RequestTimeout: time.Minute,
		Phases: []string{"create", "get", "list", "list-paged", "update", "delete"},
	}
	if !slices.Equal(cfg.Phases, want.Phases) {
		t.Errorf("phases = %v, want %v", cfg.Phases, want.Phases)
	}
	cfg.Phases, want.Phases = nil, nil
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("DefaultConfig() =\n%+v\nwant\n%+v", cfg, want)
	}
}

func TestParseConfig(t *testing.T) {
	tests := map[string]struct {
		args    []string
		wantErr []string // substrings of the error; none means valid
		check   func(t *testing.T, c Config)
	}{
		"defaults are valid": {args: nil},
		"phases are trimmed and kept in order": {
			args: []string{"--phases", " delete, create ,"},
			check: func(t *testing.T, c Config) {
				if !slices.Equal(c.Phases, []string{"delete", "create"}) {
					t.Errorf("phases = %v", c.Phases)
				}
			},
		},
		"explicit server is remembered for kubeconfig": {
			args: []string{"--server", "https://10.0.0.1:6443"},
			check: func(t *testing.T, c Config) {
				if !c.serverSet {
					t.Error("serverSet = false")
				}
			},
		},
		"default server is not explicit": {
			check: func(t *testing.T, c Config) {
				if c.serverSet {
					t.Error("serverSet = true")
				}
			},
		},
		"core group and cluster scope": {args: []string{"--group", "", "--namespace", ""}},
		"unknown phase":                {args: []string{"--phases", "create,watch"}, wantErr: []string{`unknown phase "watch"`}},
		"no phase":                     {args: []string{"--phases", ","}, wantErr: []string{"at least one phase"}},
		"zero objects":                 {args: []string{"--objects", "0"}, wantErr: []string{"--objects must be at least 1"}},
		"every error at once": {
			args:    []string{"--concurrency", "0", "--page-size", "-1", "--output", "yaml", "--server", "127.0.0.1:8080", "--kind", ""},
			wantErr: []string{"--concurrency", "--page-size", "--output must be text or json", "--server", "--kind must not be empty"},
		},
		"too many fields":   {args: []string{"--fields", "101"}, wantErr: []string{"--fields must be at most 100"}},
		"negative pid":      {args: []string{"--pid", "-1"}, wantErr: []string{"--pid"}},
		"slash in resource": {args: []string{"--resource", "a/b"}, wantErr: []string{"must not contain '/'"}},
		"zero timeout":      {args: []string{"--timeout", "0s"}, wantErr: []string{"--timeout"}},
		"stray argument":    {args: []string{"extra"}, wantErr: []string{"unexpected arguments"}},
		"crd groups":        {args: []string{"--phases", "crds", "--crd-groups", "all"}, wantErr: []string{"--crd-groups must be one or each"}},
		"zero crd step":     {args: []string{"--crd-step", "0"}, wantErr: []string{"--crd-step must be at least 1"}},
		"unknown flag":      {args: []string{"--nope"}, wantErr: []string{"unknown flag: --nope"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			cfg, err := parseConfig(tc.args)
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if tc.check != nil {
					tc.check(t, cfg)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}

func TestCommandExitCodes(t *testing.T) {
	tests := map[string]struct {
		args []string
		want int
	}{
		"help":        {[]string{"-h"}, 0},
		"bad flag":    {[]string{"--objects", "x"}, 2},
		"invalid":     {[]string{"--output", "xml"}, 2},
		"unreachable": {[]string{"--server", "http://127.0.0.1:1", "--request-timeout", "2s"}, 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var stderr strings.Builder
			if got := command(t.Context(), tc.args, io.Discard, &stderr); got != tc.want {
				t.Errorf("exit %d, want %d; stderr:\n%s", got, tc.want, stderr.String())
			}
		})
	}
}

func TestHelpIsErrHelp(t *testing.T) {
	if _, err := parseConfig([]string{"--help"}); !errors.Is(err, pflag.ErrHelp) {
		t.Errorf("err = %v, want pflag.ErrHelp", err)
	}
}
