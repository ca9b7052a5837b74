package operations

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/test/e2e/harness"
)

// TestExternalEtcd runs specd against an etcd it did not start: objects
// land in that etcd, and a second specd on the same etcd (a replica) sees
// them.
func TestExternalEtcd(t *testing.T) {
	t.Parallel()
	ctx := harness.Context(t, 2*time.Minute)
	endpoints, cli := harness.StartEtcdClient(t)

	s := harness.StartSpecd(t, harness.SpecdOptions{EtcdServers: endpoints})
	dyn := harness.DynamicClient(t, s)
	created, err := dyn.Resource(harness.Widgets.GVR()).Namespace("default").Create(ctx,
		&unstructured.Unstructured{Object: harness.WidgetObject("default", "in-etcd")}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	wh, err := dyn.Resource(harness.Warehouses.GVR()).Create(ctx,
		&unstructured.Unstructured{Object: harness.WarehouseObject("wh-in-etcd")}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create warehouse: %v", err)
	}

	for _, obj := range []*unstructured.Unstructured{created, wh} {
		key, stored := harness.FindInEtcd(t, cli, string(obj.GetUID()))
		if key == "" {
			t.Errorf("no key in etcd holds %s %s (uid %s)", obj.GetKind(), obj.GetName(), obj.GetUID())
			continue
		}
		t.Logf("%s %s is stored under %s", obj.GetKind(), obj.GetName(), key)
		if !strings.Contains(key, obj.GetName()) {
			t.Errorf("key %q does not name the object %q", key, obj.GetName())
		}
		if harness.Path(stored, "metadata", "name") != obj.GetName() || harness.Path(stored, "kind") != obj.GetKind() {
			t.Errorf("stored value under %s: %v", key, stored)
		}
	}
	// specd was told where etcd is: it must not have started its own.
	if _, err := os.Stat(filepath.Join(s.DataDir, "member")); err == nil {
		t.Errorf("specd started an embedded etcd in %s although --etcd-servers was given", s.DataDir)
	}

	// A second specd on the same etcd serves the same objects.
	replica := harness.StartSpecd(t, harness.SpecdOptions{EtcdServers: endpoints})
	dyn2 := harness.DynamicClient(t, replica)
	got, err := dyn2.Resource(harness.Widgets.GVR()).Namespace("default").Get(ctx, "in-etcd", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get through the replica: %v", err)
	}
	if got.GetUID() != created.GetUID() || got.GetResourceVersion() != created.GetResourceVersion() {
		t.Errorf("replica answered uid %s rv %s, want %s %s", got.GetUID(), got.GetResourceVersion(), created.GetUID(), created.GetResourceVersion())
	}
	if err := dyn2.Resource(harness.Widgets.GVR()).Namespace("default").Delete(ctx, "in-etcd", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete through the replica: %v", err)
	}
	if _, err := dyn.Resource(harness.Widgets.GVR()).Namespace("default").Get(ctx, "in-etcd", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get through the first specd after the replica deleted: %v, want NotFound", err)
	}
	if key, _ := harness.FindInEtcd(t, cli, string(created.GetUID())); key != "" {
		t.Errorf("deleted widget still in etcd under %s", key)
	}
}

// TestExternalEtcdTLS runs specd against an etcd that requires client
// certificates: a plain client is refused, and specd given
// --etcd-cafile, --etcd-certfile and --etcd-keyfile serves and stores
// there.
func TestExternalEtcdTLS(t *testing.T) {
	t.Parallel()
	ctx := harness.Context(t, 2*time.Minute)
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

	s := harness.StartSpecd(t, harness.SpecdOptions{EtcdServers: etcd.Endpoints,
		Args: []string{"--etcd-cafile", etcd.CAFile, "--etcd-certfile", etcd.CertFile, "--etcd-keyfile", etcd.KeyFile}})
	created, err := harness.DynamicClient(t, s).Resource(harness.Widgets.GVR()).Namespace("default").Create(ctx,
		&unstructured.Unstructured{Object: harness.WidgetObject("default", "over-tls")}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	cli, err := etcdstorage.Connect(ctx, etcdstorage.ClientConfig{Endpoints: etcd.Endpoints,
		CAFile: etcd.CAFile, CertFile: etcd.CertFile, KeyFile: etcd.KeyFile})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if key, _ := harness.FindInEtcd(t, cli, string(created.GetUID())); key == "" {
		t.Errorf("the widget specd created is not in the TLS etcd")
	}
}

// TestMaxObjectBytes runs the example of serving.md's "Size limits":
// with --max-object-bytes 4096, a Widget of about 5 KB is refused with 413
// before it reaches etcd, and nothing is stored.
func TestMaxObjectBytes(t *testing.T) {
	t.Parallel()
	ctx := harness.Context(t, time.Minute)
	s := harness.StartSpecd(t, harness.SpecdOptions{Args: []string{"--max-object-bytes", "4096"}})
	obj := harness.WidgetObject("default", "large")
	obj["metadata"].(map[string]any)["annotations"] = map[string]any{"note": strings.Repeat("x", 5000)}
	widgetsOf := harness.DynamicClient(t, s).Resource(harness.Widgets.GVR()).Namespace("default")
	_, err := widgetsOf.Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
	if !apierrors.IsRequestEntityTooLargeError(err) || !strings.Contains(err.Error(), "bytes when stored, limit is 4096") {
		t.Fatalf("create of a 5 KB widget: %v, want 413 naming the limit 4096", err)
	}
	if _, err := widgetsOf.Get(ctx, "large", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the refused widget: %v, want NotFound", err)
	}
}
