package server

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestBuiltinBodyWithoutTypeMeta: a Secret sent by client-go's dynamic
// client without apiVersion and kind is created, as kube-apiserver takes
// the URL's for a kind with Go types (kube's WatchList e2e tests create
// their Secrets so); a custom resource's body must still name both.
func TestBuiltinBodyWithoutTypeMeta(t *testing.T) {
	dc := dynamicClientOf(t, startSpecdWithBuiltins(t))
	secrets := dc.Resource(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}).Namespace("default")
	bare := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "bare", "labels": map[string]any{"a": "b"}}}}
	got, err := secrets.Create(t.Context(), bare, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetAPIVersion() != "v1" || got.GetKind() != "Secret" || got.GetLabels()["a"] != "b" {
		t.Errorf("created %v", got.Object)
	}
	got.Object["kind"] = ""
	got.SetLabels(map[string]string{"a": "c"})
	if got, err = secrets.Update(t.Context(), got, metav1.UpdateOptions{}); err != nil || got.GetKind() != "Secret" || got.GetLabels()["a"] != "c" {
		t.Errorf("update without kind: %v, %v", got, err)
	}
	widgets := dc.Resource(schema.GroupVersionResource{Group: "shop.example.com", Version: "v1", Resource: "widgets"}).Namespace("default")
	_, err = widgets.Create(t.Context(), bare, metav1.CreateOptions{})
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "Object 'Kind' is missing") {
		t.Errorf("widget without kind: %v, want kube's 400", err)
	}
}
