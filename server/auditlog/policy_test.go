package auditlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBrokenPolicyFile(t *testing.T) {
	tests := map[string]struct{ policy, want string }{
		"bad YAML":      {"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [\n", "yaml: line 3"},
		"unknown level": {policyWith("Loud"), `rules[0].level: Unsupported value: "Loud"`},
		"wrong apiVersion": {
			strings.Replace(policyWith("Metadata"), "audit.k8s.io/v1", "audit.k8s.io/v2", 1), `apiVersion "audit.k8s.io/v2", kind "Policy": want apiVersion audit.k8s.io/v1, kind Policy`},
		"no apiVersion": {"kind: Policy\nrules:\n- level: Metadata\n", `apiVersion "", kind "Policy"`},
		"wrong kind":    {strings.Replace(policyWith("Metadata"), "Policy", "Event", 1), `kind "Event"`},
		"no rules":      {"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n", "0 rules"},
		"unknown stage": {policyWith("Metadata") + "  omitStages: [Halfway]\n", `rules[0].omitStages[0]: Invalid value: "Halfway"`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			f := Flags{PolicyFile: filepath.Join(dir, "policy.yaml"), LogPath: filepath.Join(dir, "audit.log")}
			if err := os.WriteFile(f.PolicyFile, []byte(tc.policy), 0o600); err != nil {
				t.Fatal(err)
			}
			ev, b, err := New(f)
			if err == nil {
				t.Fatalf("New gave %v, %v: want an error", ev, b)
			}
			if !strings.Contains(err.Error(), f.PolicyFile) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q: want the file and %q", err, tc.want)
			}
			if _, statErr := os.Stat(f.LogPath); statErr == nil {
				t.Errorf("a broken policy left a log file")
			}
		})
	}
}

func TestMissingPolicyFile(t *testing.T) {
	dir := t.TempDir()
	f := Flags{PolicyFile: filepath.Join(dir, "nope.yaml"), LogPath: filepath.Join(dir, "audit.log")}
	_, _, err := New(f)
	if err == nil || !strings.Contains(err.Error(), f.PolicyFile) || !strings.Contains(err.Error(), "--audit-policy-file") {
		t.Fatalf("error %v: want the flag and the file", err)
	}
}
