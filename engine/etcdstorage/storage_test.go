package etcdstorage_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/engine/storage/storagetest"
)

func TestConformanceEmbedded(t *testing.T) {
	runConformance(t, etcdtest.Start(t))
}

// TestConformanceExternal runs the suite against the etcd cluster named by
// SPECD_TEST_ETCD_ENDPOINTS (comma-separated client URLs), when set.
func TestConformanceExternal(t *testing.T) {
	env := os.Getenv("SPECD_TEST_ETCD_ENDPOINTS")
	if env == "" {
		t.Skip("SPECD_TEST_ETCD_ENDPOINTS is not set")
	}
	cli, err := etcdstorage.NewClient(context.Background(), strings.Split(env, ","))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	runConformance(t, cli)
}

func runConformance(t *testing.T, cli *clientv3.Client) {
	var n atomic.Int64
	run := time.Now().UnixNano()
	storagetest.Run(t, storagetest.Config{
		New: func(t *testing.T) (storage.Storage, string) {
			return etcdstorage.New(cli), fmt.Sprintf("/conformance/%d/%d/", run, n.Add(1))
		},
		Compact: func(ctx context.Context, rev int64) error {
			_, err := cli.Compact(ctx, rev, clientv3.WithCompactPhysical())
			return err
		},
	})
}
