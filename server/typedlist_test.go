package server

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestTypedListItems: a typed client that writes in protobuf (and so
// reads objects without apiVersion and kind) and lists in JSON gets items
// equal to what it wrote, as from kube-apiserver, whose lists of built-in
// kinds leave apiVersion and kind out of their items; a custom resource's
// list keeps them, as kube's unstructured lists do.
func TestTypedListItems(t *testing.T) {
	url := startSpecdWithSMP(t)
	ctx := t.Context()
	proto, err := kubernetes.NewForConfig(&rest.Config{Host: url, ContentConfig: rest.ContentConfig{ContentType: contentTypeProtobuf}})
	if err != nil {
		t.Fatal(err)
	}
	created, err := proto.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	js, err := kubernetes.NewForConfig(&rest.Config{Host: url, ContentConfig: rest.ContentConfig{ContentType: contentTypeJSON}})
	if err != nil {
		t.Fatal(err)
	}
	list, err := js.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("list: %v, %d items", err, len(list.Items))
	}
	if diff := cmp.Diff(created, &list.Items[0]); diff != "" {
		t.Errorf("the listed item differs from the created object (-created +listed):\n%s", diff)
	}
	exchange{method: "POST", path: "/apis/shop.example.com/v1/namespaces/default/widgets", contentType: "application/json", code: 201,
		body: `{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"red"}}`}.run(t, url)
	_, body := getAccept(t, url+"/apis/shop.example.com/v1/namespaces/default/widgets", contentTypeJSON)
	if item := gjson.GetBytes(body, "items.0"); item.Get("kind").Str != "Widget" || item.Get("apiVersion").Str != "shop.example.com/v1" {
		t.Errorf("a custom resource's list item %s, want its apiVersion and kind", item.Raw)
	}
	_, body = getAccept(t, url+"/api/v1/namespaces/default/configmaps", contentTypeJSON)
	if item := gjson.GetBytes(body, "items.0"); !item.IsObject() || item.Get("kind").Exists() || item.Get("metadata.name").Str != "c" {
		t.Errorf("a ConfigMap list's item %s, want it without kind", item.Raw)
	}
}
