package operations

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/specd-io/specd/test/e2e/harness"
)

// docEncryptionConfig writes the EncryptionConfiguration that
// docs/security.md shows (Encryption at rest) and returns its path.
func docEncryptionConfig(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(harness.RepoRoot, "docs", "security.md"))
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
	ctx := harness.Context(t, 2*time.Minute)
	endpoints, cli := harness.StartEtcdClient(t)
	s := harness.StartSpecd(t, harness.SpecdOptions{EtcdServers: endpoints, Args: []string{"--encryption-provider-config", docEncryptionConfig(t)}})
	dyn := harness.DynamicClient(t, s)
	w, err := dyn.Resource(harness.Widgets.GVR()).Namespace("default").Create(ctx,
		&unstructured.Unstructured{Object: harness.WidgetObject("default", "hidden")}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	wh, err := dyn.Resource(harness.Warehouses.GVR()).Create(ctx,
		&unstructured.Unstructured{Object: harness.WarehouseObject("in-clear")}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create warehouse: %v", err)
	}

	secret := createSecret(ctx, t, dyn, "default", "token", "c2VjcmV0LXRva2VuLXZhbHVl") // base64 of secret-token-value

	resp, err := cli.Get(ctx, "", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]string{}
	for _, kv := range resp.Kvs {
		for _, clear := range []string{string(w.GetUID()), string(secret.GetUID()), "c2VjcmV0LXRva2VuLXZhbHVl", "secret-token-value"} {
			if strings.Contains(string(kv.Value), clear) {
				t.Errorf("etcd holds %q in clear under %s", clear, kv.Key)
			}
		}
		stored[string(kv.Key)] = string(kv.Value)
	}
	for _, key := range []string{"/specd/shop.example.com/widgets/default/hidden", "/specd/core/secrets/default/token"} {
		if !strings.HasPrefix(stored[key], "k8s:enc:aescbc:v1:key1:") {
			t.Errorf("etcd holds %s as %.40q, want kube's aescbc form with key1", key, stored[key])
		}
	}
	if key, _ := harness.FindInEtcd(t, cli, string(wh.GetUID())); key == "" {
		t.Error("the warehouse, which the file does not name, is not stored in clear")
	}

	got, err := dyn.Resource(harness.Widgets.GVR()).Namespace("default").Get(ctx, "hidden", metav1.GetOptions{})
	if err != nil || got.GetUID() != w.GetUID() {
		t.Fatalf("get: %v %v", got, err)
	}
	list, err := dyn.Resource(harness.Widgets.GVR()).Namespace("").List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].GetUID() != w.GetUID() {
		t.Fatalf("list: %v %v", list, err)
	}
}

// createSecret creates an Opaque Secret holding data under the key
// "token" and returns it as created.
func createSecret(ctx context.Context, t *testing.T, dyn dynamic.Interface, namespace, name, data string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": name, "namespace": namespace},
		"data":     map[string]any{"token": data},
	}}
	got, err := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}).Namespace(namespace).Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create secret %s/%s: %v", namespace, name, err)
	}
	return got
}
