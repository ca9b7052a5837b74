package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// docEncryptionConfig writes the EncryptionConfiguration that
// docs/security.md shows (Encryption at rest) and returns its path.
func docEncryptionConfig(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(doc), "\n## Encryption at rest\n")
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(section)
	if m == nil {
		t.Fatal("docs/security.md has no yaml block under Encryption at rest")
	}
	path := filepath.Join(t.TempDir(), "encryption.yaml")
	if err := os.WriteFile(path, []byte(m[1]), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEncryptionAtRest runs specd with docs/security.md's
// --encryption-provider-config on an etcd the test reads itself: the
// widgets it covers are stored encrypted, in kube's form, and served back
// in clear; warehouses, which it does not cover, stay as they are.
func TestEncryptionAtRest(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, 2*time.Minute)
	endpoints, cli := startEtcdClient(t)
	s := startSpecd(t, specdOptions{EtcdServers: endpoints, Args: []string{"--encryption-provider-config", docEncryptionConfig(t)}})
	dyn := dynamicClient(t, s)
	w, err := dyn.Resource(widgets.GVR()).Namespace("default").Create(ctx,
		&unstructured.Unstructured{Object: widgetObject("default", "hidden")}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	wh, err := dyn.Resource(warehouses.GVR()).Create(ctx,
		&unstructured.Unstructured{Object: warehouseObject("in-clear")}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create warehouse: %v", err)
	}

	resp, err := cli.Get(ctx, "", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	var widgetValue string
	for _, kv := range resp.Kvs {
		if strings.Contains(string(kv.Value), string(w.GetUID())) {
			t.Errorf("etcd holds the widget's uid in clear under %s", kv.Key)
		}
		if strings.HasSuffix(string(kv.Key), "/widgets/default/hidden") {
			widgetValue = string(kv.Value)
		}
	}
	if !strings.HasPrefix(widgetValue, "k8s:enc:aescbc:v1:key1:") {
		t.Errorf("etcd holds the widget as %.40q, want kube's aescbc form with key1", widgetValue)
	}
	if key, _ := findInEtcd(t, cli, string(wh.GetUID())); key == "" {
		t.Error("the warehouse, which the file does not name, is not stored in clear")
	}

	got, err := dyn.Resource(widgets.GVR()).Namespace("default").Get(ctx, "hidden", metav1.GetOptions{})
	if err != nil || got.GetUID() != w.GetUID() {
		t.Fatalf("get: %v %v", got, err)
	}
	list, err := dyn.Resource(widgets.GVR()).Namespace("").List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].GetUID() != w.GetUID() {
		t.Fatalf("list: %v %v", list, err)
	}
}
