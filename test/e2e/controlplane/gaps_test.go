package controlplane

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/test/e2e/harness"
)

// TestDeleteCollectionLimit deletes a collection a page at a time, with
// client-go's DeleteCollection and then with the continue token over
// HTTP, as a client of kube-apiserver can.
func TestDeleteCollectionLimit(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	harness.CreateNamespaces(t, s, "dc")
	wd := harness.DynamicClient(t, s).Resource(harness.Widgets.GVR()).Namespace("dc")
	ctx := harness.Context(t, time.Minute)
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		if _, err := wd.Create(ctx, &unstructured.Unstructured{Object: harness.WidgetObject("dc", name)}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	left := func(want ...string) {
		t.Helper()
		list, err := wd.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range list.Items {
			got = append(got, it.GetName())
		}
		if !slices.Equal(got, want) {
			t.Fatalf("left %v, want %v", got, want)
		}
	}
	if err := wd.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{Limit: 2}); err != nil {
		t.Fatal(err)
	}
	left("c", "d", "e")

	client := &http.Client{Timeout: 10 * time.Second}
	base := s.URL + "/apis/shop.example.com/v1/namespaces/dc/widgets"
	page := testhttp.Do(t, client, testhttp.Request{Method: http.MethodDelete, URL: base + "?limit=1"})
	p := harness.DecodeJSON(t, page.Body)
	token, _ := harness.Path(p, "metadata", "continue").(string)
	if page.Code != http.StatusOK || token == "" || len(p["items"].([]any)) != 1 {
		t.Fatalf("page: %d %s", page.Code, page.Body)
	}
	left("d", "e")
	rest := testhttp.Do(t, client, testhttp.Request{Method: http.MethodDelete, URL: base + "?continue=" + token})
	if rest.Code != http.StatusOK || len(harness.DecodeJSON(t, rest.Body)["items"].([]any)) != 2 {
		t.Fatalf("the rest: %d %s", rest.Code, rest.Body)
	}
	left()
}

// TestForegroundOwnershipCycle deletes, with kubectl --cascade=foreground,
// one member of objects that own each other with blockOwnerDeletion; the
// collector breaks the cycle as Kubernetes' does, also when specd
// restarts in the middle.
func TestForegroundOwnershipCycle(t *testing.T) {
	t.Parallel()
	first := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, first)
	cycle := func(prefix string) {
		t.Helper()
		k.OK(t, "create", "-f", k.Manifest(t, prefix+"-a.yaml", owned("shop.example.com/v1", "Widget", prefix+"-a", "default", nil)))
		a := jsonpath(t, k, "{.metadata.uid}", "widget", prefix+"-a")
		k.OK(t, "create", "-f", k.Manifest(t, prefix+"-b.yaml", owned("shop.example.com/v1", "Widget", prefix+"-b", "default", nil, "Widget/"+prefix+"-a/"+a+"/true")))
		b := jsonpath(t, k, "{.metadata.uid}", "widget", prefix+"-b")
		k.OK(t, "create", "-f", k.Manifest(t, prefix+"-c.yaml", owned("shop.example.com/v1", "Widget", prefix+"-c", "default", nil, "Widget/"+prefix+"-b/"+b+"/true")))
		c := jsonpath(t, k, "{.metadata.uid}", "widget", prefix+"-c")
		k.OK(t, "patch", "widget", prefix+"-a", "--type=merge", "-p",
			`{"metadata":{"ownerReferences":[{"apiVersion":"shop.example.com/v1","kind":"Widget","name":"`+prefix+`-c","uid":"`+c+`","blockOwnerDeletion":true}]}}`)
	}
	allGone := func(k *harness.Kubectl, prefix string) bool {
		return gone(t, k, "widget", prefix+"-a") && gone(t, k, "widget", prefix+"-b") && gone(t, k, "widget", prefix+"-c")
	}

	cycle("loop")
	// kubectl waits until the object is gone.
	out := k.OK(t, "delete", "widget", "loop-a", "--cascade=foreground", "--timeout=30s")
	if !strings.Contains(out, `"loop-a" deleted`) {
		t.Fatalf("delete printed %q", out)
	}
	harness.Eventually(t, "the cycle collected", func() bool { return allGone(k, "loop") })

	cycle("crash")
	k.OK(t, "delete", "widget", "crash-a", "--cascade=foreground", "--wait=false")
	first.Kill()
	second := harness.StartSpecd(t, first.Options())
	k = harness.NewKubectl(t, second)
	harness.Eventually(t, "the cycle collected after a restart", func() bool { return allGone(k, "crash") })
}

// TestScaleServerSideApply applies an autoscaling/v1 Scale to a pool's
// scale subresource with client-go, as an autoscaler would, beside
// kubectl scale.
func TestScaleServerSideApply(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: scaleExample})
	k := harness.NewKubectl(t, s)
	k.OK(t, "create", "-f", k.Manifest(t, "pool.yaml", "apiVersion: apps.example.com/v1\nkind: Pool\nmetadata:\n  name: p\nspec:\n  replicas: 2\n  selector: app=p\n"))
	pools := harness.DynamicClient(t, s).Resource(schema.GroupVersionResource{Group: "apps.example.com", Version: "v1", Resource: "pools"}).Namespace("default")
	ctx := harness.Context(t, time.Minute)
	apply := func(replicas string, force bool) (*unstructured.Unstructured, error) {
		config := []byte(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"p"},"spec":{"replicas":` + replicas + `}}`)
		return pools.Patch(ctx, "p", types.ApplyPatchType, config, metav1.PatchOptions{FieldManager: "autoscaler", Force: &force}, "scale")
	}
	_, err := apply("3", false)
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `conflict with "kubectl-create" using autoscaling/v1: .spec.replicas`) {
		t.Fatalf("apply over kubectl create's replicas: %v", err)
	}
	sc, err := apply("3", true)
	if err != nil {
		t.Fatal(err)
	}
	if sc.GetKind() != "Scale" || harness.Path(sc.Object, "spec", "replicas") != int64(3) {
		t.Fatalf("apply answered %v", sc.Object)
	}
	if got := jsonpath(t, k, `{.spec.replicas} {.metadata.managedFields[?(@.manager=="autoscaler")].subresource}`, "pool", "p"); got != "3 scale" {
		t.Fatalf("pool after the apply: %q", got)
	}
	k.OK(t, "scale", "pool", "p", "--replicas=5")
	_, err = apply("6", false)
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `conflict with "kubectl" with subresource "scale"`) {
		t.Fatalf("apply over kubectl scale's replicas: %v", err)
	}
	if _, err := apply("5", false); err != nil {
		t.Fatalf("apply of the current replicas: %v", err)
	}
	if got := jsonpath(t, k, "{.spec.replicas}", "pool", "p"); got != "5" {
		t.Fatalf("replicas %q, want 5", got)
	}
}
