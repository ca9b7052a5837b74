package auditlog

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
)

func TestRegisterDefaults(t *testing.T) {
	var f Flags
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	f.Register(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	want := Flags{MaxAge: 366, MaxBackups: 100, MaxSize: 100, Format: "json"}
	if diff := cmp.Diff(want, f); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

func TestRegisterParses(t *testing.T) {
	var f Flags
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	f.Register(fs)
	err := fs.Parse([]string{"--audit-policy-file=p.yaml", "--audit-log-path=-", "--audit-log-maxage=7",
		"--audit-log-maxbackup=3", "--audit-log-maxsize=10", "--audit-log-format=legacy"})
	if err != nil {
		t.Fatal(err)
	}
	want := Flags{PolicyFile: "p.yaml", LogPath: "-", MaxAge: 7, MaxBackups: 3, MaxSize: 10, Format: "legacy"}
	if diff := cmp.Diff(want, f); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
}

func TestCheck(t *testing.T) {
	both := Flags{PolicyFile: "p.yaml", LogPath: "audit.log"}
	tests := map[string]struct {
		f    Flags
		want []string
	}{
		"not configured": {f: Flags{MaxSize: 100}},
		"both":           {f: both},
		"policy alone":   {f: Flags{PolicyFile: "p.yaml"}, want: []string{"--audit-policy-file needs --audit-log-path"}},
		"log alone":      {f: Flags{LogPath: "-"}, want: []string{"--audit-log-path needs --audit-policy-file"}},
		"format":         {f: Flags{PolicyFile: "p", LogPath: "l", Format: "yaml"}, want: []string{`--audit-log-format "yaml": want one of legacy, json`}},
		"negatives": {f: Flags{PolicyFile: "p", LogPath: "l", MaxAge: -1, MaxBackups: -2, MaxSize: -3}, want: []string{
			"--audit-log-maxage -1: must not be negative", "--audit-log-maxbackup -2", "--audit-log-maxsize -3"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := tc.f.Check()
			if (err != nil) != (len(tc.want) > 0) {
				t.Fatalf("Check: %v, want errors %q", err, tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Check: %v, want %q", err, w)
				}
			}
		})
	}
}

func TestNewNotConfigured(t *testing.T) {
	ev, b, err := New(Flags{MaxAge: 366, MaxBackups: 100, MaxSize: 100, Format: "json"})
	if ev != nil || b != nil || err != nil {
		t.Fatalf("New: %v, %v, %v; want nil, nil, nil", ev, b, err)
	}
}

func TestNewRefusesBadFlags(t *testing.T) {
	dir := t.TempDir()
	_, _, err := New(Flags{PolicyFile: filepath.Join(dir, "p.yaml")})
	if err == nil || !strings.Contains(err.Error(), "--audit-log-path") {
		t.Fatalf("New: %v; want the missing --audit-log-path", err)
	}
}
