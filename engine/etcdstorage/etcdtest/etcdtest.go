// Package etcdtest starts an embedded etcd for a test: fast timing, no
// fsync, a temporary data directory, quiet logs, and a client. Both are
// closed when the test ends, the client first so etcd closes at once.
package etcdtest

import (
	"log/slog"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine/etcdstorage"
)

// Start returns a client of a new embedded etcd that lives as long as tb.
func Start(tb testing.TB) *clientv3.Client {
	tb.Helper()
	ctx := tb.Context()
	e, err := etcdstorage.StartEmbedded(ctx, etcdstorage.EmbeddedConfig{
		DataDir: tb.TempDir(),
		Fast:    true,
		Logger:  slog.New(slog.DiscardHandler),
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = e.Close() })
	cli, err := etcdstorage.NewClient(ctx, e.Endpoints())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = cli.Close() })
	return cli
}
