package etcdstorage_test

import (
	"context"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine/etcdstorage"
)

// startEtcd starts a fast embedded etcd for the test and returns a client;
// both stop at the end of the test, the client first.
func startEtcd(t *testing.T) *clientv3.Client {
	t.Helper()
	ctx := context.Background()
	e, err := etcdstorage.StartEmbedded(ctx, etcdstorage.EmbeddedConfig{DataDir: t.TempDir(), Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	cli, err := etcdstorage.NewClient(ctx, e.Endpoints())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	return cli
}
