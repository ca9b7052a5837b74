package main

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/migrate"
)

// storageChange: v1beta1 (deprecated), the storage version, is removed and
// v1 becomes the storage version.
func storageChange(t *testing.T) (previous, next string) {
	t.Helper()
	doc := func(version, res string) string {
		return strings.NewReplacer("version: v1\n", "version: "+version+"\n", "x-specd-resource: {}", "x-specd-resource: "+res).Replace(checkSchema)
	}
	previous, next = t.TempDir(), t.TempDir()
	for dir, files := range map[string]map[string]string{
		previous: {"v1beta1.yaml": doc("v1beta1", "{storage: true, deprecated: true}"), "v1.yaml": doc("v1", "{}")},
		next:     {"v1.yaml": doc("v1", "{storage: true}")},
	} {
		for name, content := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return previous, next
}

// TestCheckEtcdServers runs check against a real (embedded) etcd holding
// the objects of the resource: removing the storage version is an error
// only when an object is stored in it.
func TestCheckEtcdServers(t *testing.T) {
	cli, served := etcdtest.StartServing(t)
	endpoints := strings.Join(served, ",")
	previous, next := storageChange(t)
	put := func(key, apiVersion string) {
		t.Helper()
		if _, err := cli.Put(t.Context(), "/specd/test.example.com/things/"+key,
			`{"apiVersion":"test.example.com/`+apiVersion+`","kind":"Thing","metadata":{"name":"x"}}`); err != nil {
			t.Fatal(err)
		}
	}
	// Objects of another resource and group do not count.
	if _, err := cli.Put(t.Context(), "/specd/test.example.com/thingies/default/a", `{"apiVersion":"test.example.com/v1beta1"}`); err != nil {
		t.Fatal(err)
	}
	put("default/a", "v1")
	args := []string{"check", "--schemas", next, "--previous", previous, "--rounds", "0", "--etcd-servers", endpoints}
	steps := []struct {
		name string
		put  func()
		code int
		want string
	}{
		{"none stored in the removed version", func() {}, 0,
			"warning: " + filepath.Join(previous, "v1beta1.yaml") + "#/components/schemas/Thing: v1beta1, the storage version of things.test.example.com, is removed: no object is stored in it (read from etcd) [storage-version-removed]"},
		{"one stored", func() { put("default/b", "v1beta1") }, 1,
			"v1beta1 is removed but 1 object(s) of things.test.example.com are stored in it (default/b): they can no longer be read; keep it until they are migrated to v1 [storage-version-removed]"},
		{"more than a page stored", func() {
			for i := range migrate.DefaultPageSize + 3 {
				put("ns/o"+itoa(i), "v1beta1")
			}
		}, 1, "v1beta1 is removed but 504 object(s) of things.test.example.com are stored in it (default/b and 503 more)"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			s.put()
			var stdout, stderr strings.Builder
			if code := run(t.Context(), args, &stdout, &stderr); code != s.code {
				t.Errorf("exit code %d, want %d\n%s%s", code, s.code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), s.want) {
				t.Errorf("want %q in\n%s", s.want, stdout.String())
			}
		})
	}
	t.Run("etcd does not answer", func(t *testing.T) {
		var stdout, stderr strings.Builder
		start := time.Now()
		code := run(t.Context(), []string{"check", "--schemas", next, "--previous", previous, "--rounds", "0",
			"--etcd-servers", "http://" + freeLoopback(t), "--etcd-timeout", "500ms"}, &stdout, &stderr)
		if code != 1 || !strings.Contains(stdout.String(), "whether there are any is unknown") {
			t.Errorf("exit code %d, want 1 and an unknown count:\n%s%s", code, stdout.String(), stderr.String())
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("took %s with --etcd-timeout 500ms", d)
		}
	})
	t.Run("without --etcd-servers", func(t *testing.T) {
		var stdout, stderr strings.Builder
		if code := run(t.Context(), args[:len(args)-2], &stdout, &stderr); code != 1 || !strings.Contains(stdout.String(), "specd check --etcd-servers tells whether any is stored") {
			t.Errorf("exit code %d, want 1 and a hint at --etcd-servers:\n%s", code, stdout.String())
		}
	})
}

func itoa(i int) string { return strconv.Itoa(i) }

// freeLoopback is a loopback address nothing listens on.
func freeLoopback(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// TestCheckEtcdTLS: check reads an etcd that requires client certificates
// with --etcd-cafile, --etcd-certfile and --etcd-keyfile, and cannot
// without them.
func TestCheckEtcdTLS(t *testing.T) {
	etcd := etcdtest.StartTLS(t)
	cli, err := etcdstorage.Connect(t.Context(), etcdstorage.ClientConfig{Endpoints: etcd.Endpoints,
		CAFile: etcd.CAFile, CertFile: etcd.CertFile, KeyFile: etcd.KeyFile})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, err := cli.Put(t.Context(), "/specd/test.example.com/things/default/a",
		`{"apiVersion":"test.example.com/v1beta1","kind":"Thing","metadata":{"name":"a"}}`); err != nil {
		t.Fatal(err)
	}
	previous, next := storageChange(t)
	args := []string{"check", "--schemas", next, "--previous", previous, "--rounds", "0",
		"--etcd-servers", strings.Join(etcd.Endpoints, ","), "--etcd-timeout", "2s"}
	for name, tc := range map[string]struct {
		flags []string
		want  string
	}{
		"with the certificates":    {[]string{"--etcd-cafile", etcd.CAFile, "--etcd-certfile", etcd.CertFile, "--etcd-keyfile", etcd.KeyFile}, "1 object(s) of things.test.example.com are stored in it (default/a)"},
		"without a certificate":    {[]string{"--etcd-cafile", etcd.CAFile}, "whether there are any is unknown"},
		"without the certificates": {nil, "whether there are any is unknown"},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			if code := run(t.Context(), append(args, tc.flags...), &stdout, &stderr); code != 1 || !strings.Contains(stdout.String(), tc.want) {
				t.Errorf("exit code %d, want 1 and %q in\n%s%s", code, tc.want, stdout.String(), stderr.String())
			}
		})
	}
}
