package aggregated

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
)

var widgets = schema.GroupVersionResource{Group: "shop.example.com", Version: "v1", Resource: "widgets"}

// verbsThroughHost: every verb of kubectl and client-go, sent to the
// host, served by specd.
func verbsThroughHost(t *testing.T, h *host) {
	k := func(args ...string) string { return kubectl(t, h.admin, args...) }
	k("create", "-f", "examples/objects/widget.yaml")
	if out := k("get", "widget", "small", "-o", "jsonpath={.spec.color}"); out != "blue" {
		t.Fatalf("get: %q", out)
	}
	if out := k("get", "widgets"); !strings.Contains(out, "small") || !strings.Contains(out, "COLOR") {
		t.Fatalf("list as a table: %s", out)
	}
	k("patch", "widget", "small", "--type=merge", "-p", `{"spec":{"size":7}}`)
	k("apply", "--server-side", "--field-manager=test", "-f", "examples/objects/widget-ssa.yaml")
	if out := k("explain", "widgets.spec.color"); !strings.Contains(out, "The color the widget is painted") {
		t.Fatalf("explain: %s", out)
	}
	watchThroughHost(t, h)
	k("delete", "widget", "small")
	if out, errOut, err := tryKubectl(h.admin, "get", "widget", "small"); err == nil || !strings.Contains(errOut, "NotFound") {
		t.Fatalf("after delete: %v %s %s", err, out, errOut)
	}
}

// watchThroughHost: a client-go watch through the host sees a write.
func watchThroughHost(t *testing.T, h *host) {
	dc := dynamic.NewForConfigOrDie(h.restConfig(t, h.admin)).Resource(widgets).Namespace("default")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := dc.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := dc.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "shop.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "watched"}, "spec": map[string]any{"color": "red"}}}
	if _, err := dc.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for ev := range w.ResultChan() {
		if u, ok := ev.Object.(*unstructured.Unstructured); ok && ev.Type == watch.Added && u.GetName() == "watched" {
			return
		}
	}
	t.Fatal("the watch ended before the create was seen")
}
