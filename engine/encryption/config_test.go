package encryption_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"k8s.io/apiserver/pkg/storage/value"

	"github.com/specd-io/specd/engine/encryption"
)

// Keys of the tests: base64 of 32 bytes (aescbc, aesgcm, secretbox) and
// of 16 (aesgcm).
const (
	key1  = "c2VjcmV0IGlzIHNlY3VyZSwgb3IgaXMgaXQ/IDMyIGI=" // "secret is secure, or is it? 32 b"
	key2  = "YW5vdGhlciAzMi1ieXRlIGtleSBmb3Igcm90YXRpb24=" // "another 32-byte key for rotation"
	key16 = "c2l4dGVlbiBieXRlIGtleQ=="                     // "sixteen byte key"
)

// writeConfig writes an EncryptionConfiguration whose resources list is
// body and returns its path.
func writeConfig(t testing.TB, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "encryption.yaml")
	data := "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n" + body
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func mustLoad(t testing.TB, body string) *encryption.Config {
	t.Helper()
	c, err := encryption.Load(writeConfig(t, body))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// writtenPrefix is the provider and key a value names (key names are
// alphanumeric in the tests).
var writtenPrefix = regexp.MustCompile(`^k8s:enc:[a-z]+:v1:[a-z0-9]+:`)

// prefixOf is the prefix a transformer writes an empty value with.
func prefixOf(t *testing.T, tr value.Transformer) string {
	t.Helper()
	if tr == nil {
		return "<none>"
	}
	out, err := tr.TransformToStorage(context.Background(), []byte("{}"), value.DefaultContext("k"))
	if err != nil {
		t.Fatal(err)
	}
	if string(out) == "{}" {
		return "identity"
	}
	return writtenPrefix.FindString(string(out))
}

func TestMatching(t *testing.T) {
	c := mustLoad(t, `
- resources: [events]
  providers: [{identity: {}}]
- resources: [secrets, configmaps, widgets.shop.example.com]
  providers: [{aescbc: {keys: [{name: k1, secret: `+key1+`}]}}]
- resources: ["*.apps"]
  providers: [{aesgcm: {keys: [{name: g1, secret: `+key16+`}]}}]
- resources: ["*."]
  providers: [{secretbox: {keys: [{name: b1, secret: `+key2+`}]}}]
- resources: ["*.*"]
  providers: [{aesgcm: {keys: [{name: all, secret: `+key1+`}]}}]
`)
	tests := map[string]struct{ group, resource, want string }{
		"core exact":           {"", "secrets", "k8s:enc:aescbc:v1:k1:"},
		"core exact 2":         {"", "configmaps", "k8s:enc:aescbc:v1:k1:"},
		"identity first":       {"", "events", "identity"},
		"custom exact":         {"shop.example.com", "widgets", "k8s:enc:aescbc:v1:k1:"},
		"other of that group":  {"shop.example.com", "warehouses", "k8s:enc:aesgcm:v1:all:"},
		"group wildcard":       {"apps", "deployments", "k8s:enc:aesgcm:v1:g1:"},
		"core wildcard":        {"", "leases", "k8s:enc:secretbox:v1:b1:"},
		"everything else":      {"library.example.com", "books", "k8s:enc:aesgcm:v1:all:"},
		"plural not a prefix":  {"", "secretsx", "k8s:enc:secretbox:v1:b1:"},
		"group not a suffix":   {"xapps", "deployments", "k8s:enc:aesgcm:v1:all:"},
		"widgets of elsewhere": {"shop.example.org", "widgets", "k8s:enc:aesgcm:v1:all:"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := prefixOf(t, c.For(tc.group, tc.resource)); got != tc.want {
				t.Errorf("For(%q, %q) writes %q, want %q", tc.group, tc.resource, got, tc.want)
			}
		})
	}
}

func TestMatchingNotCovered(t *testing.T) {
	c := mustLoad(t, `
- resources: [secrets, widgets.shop.example.com, "*.apps"]
  providers: [{aescbc: {keys: [{name: k1, secret: `+key1+`}]}}]
`)
	for _, gr := range [][2]string{{"", "configmaps"}, {"shop.example.com", "warehouses"}, {"example.com", "secrets"}, {"apps.example.com", "deployments"}} {
		if tr := c.For(gr[0], gr[1]); tr != nil {
			t.Errorf("For(%q, %q) = %v, want nil: not covered", gr[0], gr[1], tr)
		}
	}
}

// TestSameResourceInTwoEntries: the providers of both entries apply, the
// first entry's first writing, as in kube-apiserver.
func TestSameResourceInTwoEntries(t *testing.T) {
	c := mustLoad(t, `
- resources: [secrets]
  providers: [{aesgcm: {keys: [{name: new, secret: `+key2+`}]}}]
- resources: [secrets]
  providers: [{aescbc: {keys: [{name: old, secret: `+key1+`}]}}]
`)
	if got := prefixOf(t, c.For("", "secrets")); got != "k8s:enc:aesgcm:v1:new:" {
		t.Errorf("writes %q, want the first entry's provider", got)
	}
}

func TestLoadErrors(t *testing.T) {
	aescbc := `  providers: [{aescbc: {keys: [{name: k1, secret: ` + key1 + `}]}}]` + "\n"
	tests := map[string]struct {
		body string
		want string
	}{
		"kms": {`
- resources: [secrets]
  providers:
  - kms: {apiVersion: v2, name: vault, endpoint: "unix:///tmp/kms.sock"}
  - identity: {}
`, `specd does not support KMS providers: resources[0].providers[0].kms: Unsupported value: "kms": supported values: "identity", "aescbc", "aesgcm", "secretbox"`},
		"unknown field": {"- resources: [secrets]\n  provider: []\n", `unknown field "resources[0].provider"`},
		"no providers":  {"- resources: [secrets]\n", "resources[0].providers: Required value"},
		"short key": {"- resources: [secrets]\n  providers: [{aescbc: {keys: [{name: k1, secret: " + key16[:8] + "}]}}]\n",
			"secret is not of the expected length"},
		"not base64": {"- resources: [secrets]\n  providers: [{secretbox: {keys: [{name: k1, secret: '!!!'}]}}]\n",
			"secrets must be base64 encoded"},
		"capital":        {"- resources: [Secrets]\n" + aescbc, "resource name should not contain capital letters"},
		"star alone":     {"- resources: ['*']\n" + aescbc, "use '*.' to encrypt all the resources from core API group"},
		"across groups":  {"- resources: ['secrets.*']\n" + aescbc, "encrypting the same resource across groups is not supported"},
		"overlap":        {"- resources: [secrets, '*.']\n" + aescbc, "using overlapping resources"},
		"masked by *.*":  {"- resources: ['*.*']\n" + aescbc + "- resources: [secrets]\n" + aescbc, `"secrets" is masked by the earlier rule "*.*"`},
		"masked by *.g":  {"- resources: ['*.apps']\n" + aescbc + "- resources: [deployments.apps]\n" + aescbc, `"deployments.apps" is masked by the earlier rule "*.apps"`},
		"masked by *.":   {"- resources: ['*.']\n" + aescbc + "- resources: [secrets]\n" + aescbc, `"secrets" is masked by the earlier rule "*."`},
		"no resources":   {"  []\n", "resources: Required value"},
		"wrong kind":     {"", "no kind"},
		"events.k8s.io":  {"- resources: [events.events.k8s.io]\n" + aescbc, "Use 'events' instead"},
		"two in one":     {"- resources: [secrets]\n  providers: [{identity: {}, aescbc: {keys: [{name: k1, secret: " + key1 + "}]}}]\n", "more than one provider"},
		"secretbox size": {"- resources: [secrets]\n  providers: [{secretbox: {keys: [{name: k1, secret: " + key16 + "}]}}]\n", "secret is not of the expected length"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			path := writeConfig(t, tc.body)
			if name == "wrong kind" {
				if err := os.WriteFile(path, []byte("apiVersion: v1\nkind: ConfigMap\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			_, err := encryption.Load(path)
			if err == nil {
				t.Fatal("loaded")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %q, want one naming %s and saying %q", err, path, tc.want)
			}
		})
	}
}

func TestLoadFileErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{empty: "the file is empty", filepath.Join(dir, "missing.yaml"): "no such file"} {
		_, err := encryption.Load(path)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("Load(%s): %v, want an error naming it and saying %q", path, err, want)
		}
	}
}
