package aggregated

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/typed/apiregistration/v1"
)

// namespaceDeletion: the host's namespace controller empties a deleted
// namespace of specd's objects, through discovery and deletecollection.
func namespaceDeletion(t *testing.T, h *host) {
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "doomed"}}
	if _, err := h.client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kubectl(t, h.admin, "create", "-n", "doomed", "-f", "examples/objects/widget.yaml")
	kubectl(t, h.admin, "delete", "namespace", "doomed", "--wait=false")
	eventually(t, 90*time.Second, "namespace doomed gone", func() (bool, string) {
		_, err := h.client.CoreV1().Namespaces().Get(ctx, "doomed", metav1.GetOptions{})
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})
	// Straight from specd, with its own admin: the object is gone.
	out := kubectl(t, specdAdmin(h), "get", "widgets", "-n", "doomed", "-o", "name")
	if strings.TrimSpace(out) != "" {
		t.Fatalf("left in specd: %s", out)
	}
}

// ownedByHostConfigMap: the host's garbage collector deletes a specd
// object whose owner, a host ConfigMap, is deleted; specd's own
// collector never took the host's ConfigMap for a missing owner.
func ownedByHostConfigMap(t *testing.T, h *host) {
	ctx := context.Background()
	cm, err := h.client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dc := dynamic.NewForConfigOrDie(h.restConfig(t, h.admin)).Resource(widgets).Namespace("default")
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "shop.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "owned", "ownerReferences": []any{map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": string(cm.UID)}}},
		"spec": map[string]any{"color": "green"}}}
	if _, err := dc.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// specd's collector runs at once after a write and every 30 s; the
	// host's sees the new object through its metadata informer.
	time.Sleep(3 * time.Second)
	if _, err := dc.Get(ctx, "owned", metav1.GetOptions{}); err != nil {
		t.Fatalf("the owned widget, its owner alive: %v", err)
	}
	if err := h.client.CoreV1().ConfigMaps("default").Delete(ctx, "owner", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 90*time.Second, "the owned widget collected", func() (bool, string) {
		_, err := dc.Get(ctx, "owned", metav1.GetOptions{})
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})
}

// gadgets is a group a schema file adds while specd runs.
const gadgets = `openapi: 3.0.3
info: {title: Gadgets, version: v1}
x-specd: {group: gadgets.example.com, allowBreaking: true}
paths: {}
components:
  schemas:
    Gadget:
      type: object
      x-specd-resource: {storage: true}
      properties:
        spec:
          type: object
          properties:
            kind: {type: string}
`

// reloadFollowed: a new schema file's group is served through the host
// within 5 s; once the file goes, its APIService goes.
func reloadFollowed(t *testing.T, h *host, s *specd, registry *apiregistrationclient.ApiregistrationV1Client) {
	file := filepath.Join(s.schemas, "gadgets.yaml")
	if err := os.WriteFile(file, []byte(gadgets), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	eventually(t, 5*time.Second, "gadgets served through the host", func() (bool, string) {
		out, errOut, err := tryKubectl(h.admin, "get", "gadgets.gadgets.example.com", "--cache-dir", t.TempDir())
		return err == nil, out + errOut
	})
	t.Logf("gadgets served through the host %v after the file was written", time.Since(start).Round(time.Millisecond))
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the APIService of gadgets withdrawn", func() (bool, string) {
		_, err := registry.APIServices().Get(context.Background(), "v1.gadgets.example.com", metav1.GetOptions{})
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})
}

// specdDown: with specd killed, the host answers 503 for its groups and
// serves everything else; restarted, specd's groups are Available again.
// A namespace deleted meanwhile waits for specd, and goes once it is back.
func specdDown(t *testing.T, h *host, s *specd) {
	kubectl(t, h.admin, "create", "-f", "examples/objects/widget.yaml")
	kubectl(t, h.admin, "create", "namespace", "held")
	kubectl(t, h.admin, "create", "-n", "held", "-f", "examples/objects/widget.yaml")
	s.proc.kill()
	eventually(t, 30*time.Second, "503 for widgets", func() (bool, string) {
		_, errOut, err := tryKubectl(h.admin, "get", "widgets", "--cache-dir", t.TempDir())
		return err != nil && strings.Contains(errOut, "ServiceUnavailable") || strings.Contains(errOut, "503"), errOut
	})
	if _, errOut, err := tryKubectl(h.admin, "get", "configmaps", "-n", "kube-system"); err != nil {
		t.Fatalf("the host's own resources with specd down: %v %s", err, errOut)
	}
	// What docs/aggregation.md says of discovery with specd down: once
	// the aggregator finds the APIService unavailable, the host's
	// discovery leaves specd's groups out, without an error.
	kubectl(t, h.admin, "wait", "--for=condition=Available=False", "apiservice/v1.shop.example.com", "--timeout=90s")
	eventually(t, 30*time.Second, "discovery without specd's groups", func() (bool, string) {
		out, errOut, err := tryKubectl(h.admin, "api-resources", "--cache-dir", t.TempDir())
		return err == nil && strings.Contains(out, "configmaps") && !strings.Contains(out, "shop.example.com"), out + errOut
	})
	kubectl(t, h.admin, "delete", "namespace", "held", "--wait=false")
	kubectl(t, h.admin, "wait", "--for=condition=NamespaceDeletionDiscoveryFailure", "namespace/held", "--timeout=60s")
	out := kubectl(t, h.admin, "get", "namespace", "held", "-o", `jsonpath={.status.conditions[?(@.type=="NamespaceDeletionDiscoveryFailure")].message}`)
	if !strings.Contains(out, "shop.example.com/v1: stale GroupVersion discovery") {
		t.Errorf("the namespace's discovery failure: %s", out)
	}
	s.start(h.t)
	awaitAvailable(t, h, "v1.shop.example.com")
	eventually(t, 90*time.Second, "namespace held gone, specd back", func() (bool, string) {
		_, err := h.client.CoreV1().Namespaces().Get(context.Background(), "held", metav1.GetOptions{})
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})
	eventually(t, 30*time.Second, "widgets served again", func() (bool, string) {
		out, errOut, err := tryKubectl(h.admin, "get", "widget", "small", "-o", "name")
		return err == nil && strings.TrimSpace(out) == "widget.shop.example.com/small", out + errOut
	})
}

// specdAdmin is specd's own admin kubeconfig, written into its data
// directory.
func specdAdmin(h *host) string { return filepath.Join(h.dir, "specd", "admin.kubeconfig") }
