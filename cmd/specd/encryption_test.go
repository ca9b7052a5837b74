package main

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/encryption"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/schemas"
)

// securityDocConfig writes the EncryptionConfiguration of docs/security.md
// ("Encryption at rest") to a file and returns its path.
func securityDocConfig(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(doc), "\n## Encryption at rest\n")
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(section)
	if m == nil {
		t.Fatal("docs/security.md has no yaml block under Encryption at rest")
	}
	path := filepath.Join(t.TempDir(), "encryption.yaml")
	if err := os.WriteFile(path, []byte(m[1]), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSecurityDocEncryption serves the example widgets with the file of
// docs/security.md: etcd holds what the page says, and a file without
// the key fails as the page says.
func TestSecurityDocEncryption(t *testing.T) {
	reg, err := schemas.Load("../../examples/schemas")
	if err != nil {
		t.Fatal(err)
	}
	rv := reg.Group("shop.example.com").Resource("widgets").Version("v1")
	cli := etcdtest.Start(t)
	wrap, err := encryption.Flag{Path: securityDocConfig(t)}.Load(engine.DefaultPrefix, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	store := engine.NewStore(wrap(etcdstorage.New(cli)), engine.Options{Logger: slog.New(slog.DiscardHandler)})
	body := `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"small"},"spec":{"color":"blue"}}`
	if _, err := store.Create(t.Context(), engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "default"}, Body: []byte(body), Options: engine.WriteOptions{}}); err != nil {
		t.Fatal(err)
	}
	resp, err := cli.Get(t.Context(), engine.DefaultPrefix+"shop.example.com/widgets/default/small")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("etcd: %v", err)
	}
	if v := string(resp.Kvs[0].Value); !strings.HasPrefix(v, "k8s:enc:aescbc:v1:key1:") || strings.Contains(v, "blue") {
		t.Errorf("etcd holds %.60q, want it encrypted as docs/security.md says", v)
	}

	other := filepath.Join(t.TempDir(), "other.yaml")
	if err := os.WriteFile(other, []byte(`apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources: [{resources: [widgets.shop.example.com], providers: [{secretbox: {keys: [{name: k, secret: YW5vdGhlciAzMi1ieXRlIGtleSBmb3Igcm90YXRpb24=}]}}]}]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	if wrap, err = (encryption.Flag{Path: other}).Load(engine.DefaultPrefix, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	_, err = engine.NewStore(wrap(etcdstorage.New(cli)), engine.Options{Logger: slog.New(slog.DiscardHandler)}).Get(t.Context(), engine.Ref{Version: rv, Namespace: "default", Name: "small"})
	if want := `encryption: decryption failed: widgets.shop.example.com "default/small":`; !errors.Is(err, encryption.ErrDecrypt) || !strings.Contains(err.Error(), want) {
		t.Errorf("Get without the key: %v, want %q as docs/security.md shows", err, want)
	}
}

// TestServeRefusesKMS: a kms provider stops specd before it starts etcd,
// with the file named.
func TestServeRefusesKMS(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kms.yaml")
	if err := os.WriteFile(path, []byte(`apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources: [{resources: [secrets], providers: [{kms: {apiVersion: v2, name: vault, endpoint: "unix:///kms.sock"}}]}]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(t.TempDir(), "data")
	_, schemaDir := storageChange(t)
	var stdout, stderr strings.Builder
	code := run(t.Context(), []string{"serve", "--schemas", schemaDir, "--listen", "127.0.0.1:0", "--insecure-serving",
		"--data-dir", dataDir, "--encryption-provider-config", path}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "encryption provider config "+path+": specd does not support KMS providers") {
		t.Errorf("exit code %d, want 1 and the file named:\n%s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dataDir, "member")); err == nil {
		t.Error("etcd started")
	}
}

// TestCheckEtcdEncrypted: check reads objects stored encrypted with the
// file it is given.
func TestCheckEtcdEncrypted(t *testing.T) {
	cli, endpoints := etcdtest.StartServing(t)
	previous, next := storageChange(t)
	path := filepath.Join(t.TempDir(), "encryption.yaml")
	if err := os.WriteFile(path, []byte(`apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources: [{resources: ["*.test.example.com"], providers: [{aesgcm: {keys: [{name: k, secret: YW5vdGhlciAzMi1ieXRlIGtleSBmb3Igcm90YXRpb24=}]}}]}]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := encryption.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	st := encryption.Wrap(etcdstorage.New(cli), c, engine.DefaultPrefix)
	if _, err := st.Create(t.Context(), engine.DefaultPrefix+"test.example.com/things/default/old",
		[]byte(`{"apiVersion":"test.example.com/v1beta1","kind":"Thing","metadata":{"name":"old"}}`)); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	code := run(t.Context(), []string{"check", "--schemas", next, "--previous", previous, "--rounds", "0",
		"--etcd-servers", strings.Join(endpoints, ","), "--encryption-provider-config", path}, &stdout, &stderr)
	if want := "1 object(s) of things.test.example.com are stored in it (default/old)"; code != 1 || !strings.Contains(stdout.String(), want) {
		t.Errorf("exit code %d, want 1 and %q:\n%s%s", code, want, stdout.String(), stderr.String())
	}
	stdout.Reset()
	if code := run(t.Context(), []string{"check", "--schemas", next, "--rounds", "0", "--encryption-provider-config", path}, &stdout, &stderr); code != 2 {
		t.Errorf("--encryption-provider-config without --etcd-servers: exit code %d, want 2", code)
	}
}
