package migrate_test

import (
	"context"
	"os"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/schemas"
)

// testClient is one embedded etcd shared by the package's tests; each test
// gets its own key prefix.
var (
	testClient *clientv3.Client
	prefixes   atomic.Int64
)

func TestMain(m *testing.M) {
	os.Exit(etcdtest.Main(m, func(c *clientv3.Client) { testClient = c }))
}

// testNow is the clock of every test store.
var testNow = time.Date(2026, 11, 21, 10, 19, 21, 400_000_000, time.UTC)

func mustCreate(tb testing.TB, s *engine.Store, rv *schemas.ResourceVersion, ns, body string) []byte {
	tb.Helper()
	res, err := s.Create(context.Background(), engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: ns}, Body: []byte(body), Options: engine.WriteOptions{}})
	if err != nil {
		tb.Fatalf("Create: %v", err)
	}
	return res.Object
}
