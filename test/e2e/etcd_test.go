package e2e

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
)

// startEtcdClient starts an etcd (startEtcd) and returns its endpoints and
// a client of it, closed when the test ends, before etcd.
func startEtcdClient(t *testing.T) ([]string, *clientv3.Client) {
	t.Helper()
	endpoints := startEtcd(t)
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() }) // before etcd's Close: cleanups run last first
	return endpoints, cli
}

// TestExternalEtcd runs specd against an etcd it did not start: objects
// land in that etcd, and a second specd on the same etcd (a replica) sees
// them.
func TestExternalEtcd(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, 2*time.Minute)
	endpoints, cli := startEtcdClient(t)

	s := startSpecd(t, specdOptions{EtcdServers: endpoints})
	dyn := dynamicClient(t, s)
	created, err := dyn.Resource(widgets.GVR()).Namespace("default").Create(ctx,
		&unstructured.Unstructured{Object: widgetObject("default", "in-etcd")}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	wh, err := dyn.Resource(warehouses.GVR()).Create(ctx,
		&unstructured.Unstructured{Object: warehouseObject("wh-in-etcd")}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create warehouse: %v", err)
	}

	for _, obj := range []*unstructured.Unstructured{created, wh} {
		key, stored := findInEtcd(t, cli, string(obj.GetUID()))
		if key == "" {
			t.Errorf("no key in etcd holds %s %s (uid %s)", obj.GetKind(), obj.GetName(), obj.GetUID())
			continue
		}
		t.Logf("%s %s is stored under %s", obj.GetKind(), obj.GetName(), key)
		if !strings.Contains(key, obj.GetName()) {
			t.Errorf("key %q does not name the object %q", key, obj.GetName())
		}
		if path(stored, "metadata", "name") != obj.GetName() || path(stored, "kind") != obj.GetKind() {
			t.Errorf("stored value under %s: %v", key, stored)
		}
	}
	// specd was told where etcd is: it must not have started its own.
	if _, err := os.Stat(filepath.Join(s.DataDir, "member")); err == nil {
		t.Errorf("specd started an embedded etcd in %s although --etcd-servers was given", s.DataDir)
	}

	// A second specd on the same etcd serves the same objects.
	replica := startSpecd(t, specdOptions{EtcdServers: endpoints})
	dyn2 := dynamicClient(t, replica)
	got, err := dyn2.Resource(widgets.GVR()).Namespace("default").Get(ctx, "in-etcd", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get through the replica: %v", err)
	}
	if got.GetUID() != created.GetUID() || got.GetResourceVersion() != created.GetResourceVersion() {
		t.Errorf("replica answered uid %s rv %s, want %s %s", got.GetUID(), got.GetResourceVersion(), created.GetUID(), created.GetResourceVersion())
	}
	if err := dyn2.Resource(widgets.GVR()).Namespace("default").Delete(ctx, "in-etcd", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete through the replica: %v", err)
	}
	if _, err := dyn.Resource(widgets.GVR()).Namespace("default").Get(ctx, "in-etcd", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get through the first specd after the replica deleted: %v, want NotFound", err)
	}
	if key, _ := findInEtcd(t, cli, string(created.GetUID())); key != "" {
		t.Errorf("deleted widget still in etcd under %s", key)
	}
}

// TestExternalEtcdTLS runs specd against an etcd that requires client
// certificates: a plain client is refused, and specd given
// --etcd-cafile, --etcd-certfile and --etcd-keyfile serves and stores
// there.
func TestExternalEtcdTLS(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, 2*time.Minute)
	etcd := etcdtest.StartTLS(t)

	plain, err := clientv3.New(clientv3.Config{Endpoints: etcd.Endpoints, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	plainCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := plain.Get(plainCtx, "", clientv3.WithPrefix()); err == nil {
		t.Fatal("a client without a certificate read etcd")
	}

	s := startSpecd(t, specdOptions{EtcdServers: etcd.Endpoints,
		Args: []string{"--etcd-cafile", etcd.CAFile, "--etcd-certfile", etcd.CertFile, "--etcd-keyfile", etcd.KeyFile}})
	created, err := dynamicClient(t, s).Resource(widgets.GVR()).Namespace("default").Create(ctx,
		&unstructured.Unstructured{Object: widgetObject("default", "over-tls")}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	cli, err := etcdstorage.Connect(ctx, etcdstorage.ClientConfig{Endpoints: etcd.Endpoints,
		CAFile: etcd.CAFile, CertFile: etcd.CertFile, KeyFile: etcd.KeyFile})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if key, _ := findInEtcd(t, cli, string(created.GetUID())); key == "" {
		t.Errorf("the widget specd created is not in the TLS etcd")
	}
}

// findInEtcd scans every key in etcd for the JSON object with the given
// uid; it returns its key and value, or "" if none has it.
func findInEtcd(t *testing.T, cli *clientv3.Client, uid string) (string, map[string]any) {
	t.Helper()
	ctx := testContext(t, 10*time.Second)
	resp, err := cli.Get(ctx, "", clientv3.WithPrefix())
	if err != nil {
		t.Fatalf("read etcd: %v", err)
	}
	for _, kv := range resp.Kvs {
		var obj map[string]any
		if json.Unmarshal(kv.Value, &obj) != nil {
			continue
		}
		if path(obj, "metadata", "uid") == uid {
			return string(kv.Key), obj
		}
	}
	return "", nil
}

// startEtcd starts a single-member etcd inside the test process on free
// loopback port the kernel picks (none is picked and closed first), with a
// data directory of the test's, and stops it when the test ends. It
// returns the client URLs.
func startEtcd(t testing.TB) []string {
	t.Helper()
	return startEtcdAt(t, url.URL{Scheme: "http", Host: "127.0.0.1:0"})
}

// startEtcdAt is startEtcd serving clients at client. A single member
// needs no peer listener: its peer URL is only a name.
func startEtcdAt(t testing.TB, client url.URL) []string {
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

// etcdSocketURL is a client URL for an etcd the test starts later
// (startEtcdAt): a unix socket in a new directory, so nothing can take it
// in between, as a TCP port picked early could be. The directory is
// short-named: a socket path has at most 108 bytes.
func etcdSocketURL(t *testing.T) url.URL {
	t.Helper()
	dir, err := os.MkdirTemp("", "e2e-etcd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return url.URL{Scheme: "unix", Path: filepath.Join(dir, "etcd.sock")}
}

// TestMaxObjectBytes runs the example of serving.md's "Size limits":
// with --max-object-bytes 4096, a Widget of about 5 KB is refused with 413
// before it reaches etcd, and nothing is stored.
func TestMaxObjectBytes(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, time.Minute)
	s := startSpecd(t, specdOptions{Args: []string{"--max-object-bytes", "4096"}})
	obj := widgetObject("default", "large")
	obj["metadata"].(map[string]any)["annotations"] = map[string]any{"note": strings.Repeat("x", 5000)}
	widgetsOf := dynamicClient(t, s).Resource(widgets.GVR()).Namespace("default")
	_, err := widgetsOf.Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
	if !apierrors.IsRequestEntityTooLargeError(err) || !strings.Contains(err.Error(), "bytes when stored, limit is 4096") {
		t.Fatalf("create of a 5 KB widget: %v, want 413 naming the limit 4096", err)
	}
	if _, err := widgetsOf.Get(ctx, "large", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the refused widget: %v, want NotFound", err)
	}
}
