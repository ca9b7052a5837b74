// Package etcdtest starts an embedded etcd for a test (Start) or for all
// of a package's tests (Main): fast timing, no fsync, a temporary data
// directory, quiet logs, and the client specd serve uses with its
// embedded etcd (Embedded.Client: reads, writes, watches and leases
// in-process, maintenance on the socket). Both are
// closed when the test (or the package's tests) end, the client first so
// etcd closes at once.
package etcdtest

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine/etcdstorage"
)

// Start returns a client of a new embedded etcd that lives as long as tb.
func Start(tb testing.TB) *clientv3.Client {
	tb.Helper()
	cli, _ := StartServing(tb)
	return cli
}

// StartServing is Start, and it also returns the endpoints (the unix
// socket) at which other processes, such as a specd under test, reach
// the same etcd.
func StartServing(tb testing.TB) (*clientv3.Client, []string) {
	tb.Helper()
	ctx := tb.Context()
	// Not tb.TempDir(): a long test name would make the socket path
	// longer than a unix socket's 107 bytes.
	dir, err := os.MkdirTemp("", "etcd-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = os.RemoveAll(dir) })
	e, err := etcdstorage.StartEmbedded(ctx, etcdstorage.EmbeddedConfig{
		DataDir: dir,
		Fast:    true,
		Logger:  slog.New(slog.DiscardHandler),
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = e.Close() })
	cli, err := e.Client(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = cli.Close() })
	return cli, e.Endpoints()
}

// Main runs a package's tests on one embedded etcd that they share, for
// a TestMain: os.Exit(etcdtest.Main(m, func(c *clientv3.Client) { client = c })).
// use is given the client before any test runs. It returns m.Run's code,
// or 1 when etcd cannot start.
func Main(m *testing.M, use func(*clientv3.Client)) int {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "specd-test-etcd-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcdtest:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	e, err := etcdstorage.StartEmbedded(ctx, etcdstorage.EmbeddedConfig{DataDir: dir, Fast: true,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcdtest:", err)
		return 1
	}
	defer e.Close()
	cli, err := e.Client(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcdtest:", err)
		return 1
	}
	// Closed before etcd, so that etcd closes at once.
	defer cli.Close()
	use(cli)
	return m.Run()
}
