package harness

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
)

// StartEtcdClient starts an etcd (StartEtcd) and returns its endpoints and
// a client of it, closed when the test ends, before etcd.
func StartEtcdClient(t *testing.T) ([]string, *clientv3.Client) {
	t.Helper()
	endpoints := StartEtcd(t)
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() }) // before etcd's Close: cleanups run last first
	return endpoints, cli
}

// FindInEtcd scans every key in etcd for the JSON object with the given
// uid; it returns its key and value, or "" if none has it.
func FindInEtcd(t *testing.T, cli *clientv3.Client, uid string) (string, map[string]any) {
	t.Helper()
	ctx := Context(t, 10*time.Second)
	resp, err := cli.Get(ctx, "", clientv3.WithPrefix())
	if err != nil {
		t.Fatalf("read etcd: %v", err)
	}
	for _, kv := range resp.Kvs {
		var obj map[string]any
		if json.Unmarshal(kv.Value, &obj) != nil {
			continue
		}
		if Path(obj, "metadata", "uid") == uid {
			return string(kv.Key), obj
		}
	}
	return "", nil
}

// StartEtcd starts a single-member etcd inside the test process on free
// loopback port the kernel picks (none is picked and closed first), with a
// data directory of the test's, and stops it when the test ends. It
// returns the client URLs.
func StartEtcd(t testing.TB) []string {
	t.Helper()
	return StartEtcdAt(t, url.URL{Scheme: "http", Host: "127.0.0.1:0"})
}

// StartEtcdAt is StartEtcd serving clients at client. A single member
// needs no peer listener: its peer URL is only a name.
func StartEtcdAt(t testing.TB, client url.URL) []string {
	t.Helper()
	dir := t.TempDir()
	cfg := embed.NewConfig()
	cfg.Name = "e2e"
	cfg.Dir = filepath.Join(dir, "data")
	peer := url.URL{Scheme: "unix", Path: filepath.Join(dir, "peer.unused")}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = nil, []url.URL{peer}
	cfg.EnableGRPCGateway = false // it would dial the configured port, maybe 0
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.TickMs, cfg.ElectionMs, cfg.UnsafeNoFsync = 10, 100, true
	cfg.LogLevel = "warn"
	logFile := filepath.Join(dir, "etcd.log")
	cfg.LogOutputs = []string{logFile}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatalf("start etcd: %v", err)
	}
	var once sync.Once
	stop := func() { once.Do(e.Close) }
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			log, _ := os.ReadFile(logFile)
			t.Logf("--- etcd log ---\n%s", log)
		}
	})
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		t.Fatalf("etcd: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("etcd not ready after 30s")
	}
	if client.Scheme == "unix" {
		return []string{client.String()}
	}
	var endpoints []string
	for _, l := range e.Clients {
		endpoints = append(endpoints, "http://"+l.Addr().String())
	}
	return endpoints
}

// EtcdSocketURL is a client URL for an etcd the test starts later
// (StartEtcdAt): a unix socket in a new directory, so nothing can take it
// in between, as a TCP port picked early could be. The directory is
// short-named: a socket path has at most 108 bytes.
func EtcdSocketURL(t *testing.T) url.URL {
	t.Helper()
	dir, err := os.MkdirTemp("", "e2e-etcd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return url.URL{Scheme: "unix", Path: filepath.Join(dir, "etcd.sock")}
}
