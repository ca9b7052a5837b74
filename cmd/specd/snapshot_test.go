package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
)

// TestSnapshotExternalTLS saves a snapshot of an external etcd that
// wants client certificates, restores it for the embedded etcd, and
// finds the key in the etcd that starts on the restored directory, at a
// revision moved on by --bump-revision.
func TestSnapshotExternalTLS(t *testing.T) {
	etcd := etcdtest.StartTLS(t)
	cli, err := etcdstorage.Connect(t.Context(), etcdstorage.ClientConfig{Endpoints: etcd.Endpoints,
		CAFile: etcd.CAFile, CertFile: etcd.CertFile, KeyFile: etcd.KeyFile})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, err := cli.Put(t.Context(), "/specd/core/configmaps/default/a", `{"kind":"ConfigMap"}`); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "snap-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	file := filepath.Join(dir, "backup.db")
	runOK(t, "snapshot", "save", file, "--etcd-servers", etcd.Endpoints[0],
		"--etcd-cafile", etcd.CAFile, "--etcd-certfile", etcd.CertFile, "--etcd-keyfile", etcd.KeyFile)
	restored := filepath.Join(dir, "r")
	runOK(t, "snapshot", "restore", file, "--data-dir", restored, "--bump-revision", "1000")
	e, err := etcdstorage.StartEmbedded(t.Context(), etcdstorage.EmbeddedConfig{DataDir: restored, Fast: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	rcli, err := etcdstorage.NewClient(context.WithoutCancel(t.Context()), e.Endpoints())
	if err != nil {
		t.Fatal(err)
	}
	defer rcli.Close()
	resp, err := rcli.Get(t.Context(), "/specd/core/configmaps/default/a")
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != `{"kind":"ConfigMap"}` {
		t.Fatalf("restored etcd has %v", resp.Kvs)
	}
	if resp.Header.Revision < 1000 {
		t.Errorf("restored revision %d, want it moved on by 1000", resp.Header.Revision)
	}
}

func runOK(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr strings.Builder
	if code := run(t.Context(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("specd %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.String()
}

func TestSnapshotUsage(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"unknown subcommand":  {[]string{"snapshot", "take"}, `unknown command "take"`},
		"no file":             {[]string{"snapshot", "save", "--data-dir", "d"}, "want one FILE, got 0"},
		"two files":           {[]string{"snapshot", "save", "a", "b", "--data-dir", "d"}, "want one FILE, got 2"},
		"no source":           {[]string{"snapshot", "save", "a"}, "give --data-dir or --etcd-servers"},
		"two sources":         {[]string{"snapshot", "save", "a", "--data-dir", "d", "--etcd-servers", "http://e:2379"}, "give one"},
		"TLS on http":         {[]string{"snapshot", "save", "a", "--etcd-servers", "https://e:2379", "--etcd-certfile", "c"}, "--etcd-certfile and --etcd-keyfile go together"},
		"unknown flag":        {[]string{"snapshot", "restore", "a", "--nope"}, "unknown flag: --nope"},
		"restore needs a dir": {[]string{"snapshot", "restore", "a"}, "--data-dir is required"},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			if code := run(t.Context(), tc.args, &stdout, &stderr); code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr %q, want it to say %q", stderr.String(), tc.want)
			}
		})
	}
}

// TestSnapshotSaveNoData refuses a data directory that holds no etcd
// data rather than starting a new, empty etcd there.
func TestSnapshotSaveNoData(t *testing.T) {
	var stdout, stderr strings.Builder
	if code := run(t.Context(), []string{"snapshot", "save", filepath.Join(t.TempDir(), "x.db"), "--data-dir", t.TempDir()}, &stdout, &stderr); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(stderr.String(), "holds no etcd data") {
		t.Errorf("stderr %q", stderr.String())
	}
}
