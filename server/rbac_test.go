package server

import (
	"log/slog"
	"net/http/httptest"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	rbacclient "k8s.io/client-go/kubernetes/typed/rbac/v1"
	"k8s.io/client-go/rest"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
)

// startSpecdWithBuiltins serves the example schemas and the built-in
// ones, as specd serve loads them, from a real engine with a watch cache
// on an embedded etcd; it returns the server's URL.
func startSpecdWithBuiltins(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts etcd")
	}
	reg, _, err := schemas.NewLoader("../examples/schemas", builtin.Schemas()).Load()
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	st := etcdstorage.New(etcdtest.Start(t))
	caches := watchcache.New(st, watchcache.Config{Logger: quiet})
	t.Cleanup(caches.Close)
	s := New(Config{
		Registry: func() *schemas.Registry { return reg },
		Store:    engine.NewStore(st, engine.Options{Logger: quiet, Cache: caches}),
		Logger:   quiet,
	})
	srv := httptest.NewUnstartedServer(s)
	srv.Config.RegisterOnShutdown(s.CloseWatches)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

func dynamicClientOf(t *testing.T, url string) dynamic.Interface {
	t.Helper()
	dc, err := dynamic.NewForConfig(&rest.Config{Host: url})
	if err != nil {
		t.Fatal(err)
	}
	return dc
}

func rbacGVR(plural string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: plural}
}

func rbacObject(kind, name string, fields map[string]any) *unstructured.Unstructured {
	obj := map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": map[string]any{"name": name}}
	for k, v := range fields {
		obj[k] = v
	}
	return &unstructured.Unstructured{Object: obj}
}

// TestRBACResources creates, lists and watches the built-in RBAC kinds
// through the API, with kube's names (system:...) and shapes.
func TestRBACResources(t *testing.T) {
	dc := dynamicClientOf(t, startSpecdWithBuiltins(t))
	ctx := t.Context()
	bindings := dc.Resource(rbacGVR("rolebindings")).Namespace("default")
	w, err := bindings.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watch rolebindings: %v", err)
	}
	defer w.Stop()

	role := rbacObject("ClusterRole", "system:widget-reader", map[string]any{
		"rules": []any{map[string]any{"apiGroups": []any{"shop.example.com"}, "resources": []any{"widgets", "widgets/status"}, "verbs": []any{"get", "list", "watch"}}},
		"aggregationRule": map[string]any{"clusterRoleSelectors": []any{
			map[string]any{"matchLabels": map[string]any{"rbac.example.com/aggregate-to-view": "true"}}}},
	})
	created, err := dc.Resource(rbacGVR("clusterroles")).Create(ctx, role, metav1.CreateOptions{FieldValidation: "Strict"})
	if err != nil {
		t.Fatalf("create cluster role: %v", err)
	}
	if _, found, _ := unstructured.NestedSlice(created.Object, "aggregationRule", "clusterRoleSelectors"); !found {
		t.Errorf("aggregationRule was not kept: %v", created.Object)
	}
	binding := rbacObject("RoleBinding", "alice-reads", map[string]any{
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "system:widget-reader"},
		"subjects": []any{map[string]any{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"}},
	})
	if _, err := bindings.Create(ctx, binding, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
		t.Fatalf("create role binding: %v", err)
	}
	ev := <-w.ResultChan()
	if obj, ok := ev.Object.(*unstructured.Unstructured); ev.Type != watch.Added || !ok || obj.GetName() != "alice-reads" {
		t.Errorf("watch event %s %v, want ADDED alice-reads", ev.Type, ev.Object)
	}
	list, err := dc.Resource(rbacGVR("clusterroles")).List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].GetName() != "system:widget-reader" {
		t.Fatalf("list cluster roles: %v %v", list, err)
	}
}

// TestRBACValidation: what kube's schema refuses is refused with a 422
// naming the field.
func TestRBACValidation(t *testing.T) {
	dc := dynamicClientOf(t, startSpecdWithBuiltins(t))
	binding := rbacObject("ClusterRoleBinding", "bad", map[string]any{
		"roleRef": map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
	})
	_, err := dc.Resource(rbacGVR("clusterrolebindings")).Create(t.Context(), binding, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("got %v, want Invalid", err)
	}
	if causes := err.(apierrors.APIStatus).Status().Details.Causes; len(causes) != 1 || causes[0].Field != "roleRef.kind" {
		t.Errorf("causes %v, want one at roleRef.kind", causes)
	}
}

// TestRBACProtobufBody: client-go's typed clients (kubectl create role)
// send protobuf; specd reads it for the built-in kinds.
func TestRBACProtobufBody(t *testing.T) {
	cfg := &rest.Config{Host: startSpecdWithBuiltins(t), ContentConfig: rest.ContentConfig{ContentType: "application/vnd.kubernetes.protobuf"}}
	c, err := rbacclient.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "system:reader"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"shop.example.com"}, Resources: []string{"widgets"}, Verbs: []string{"get"}}}}
	got, err := c.Roles("default").Create(t.Context(), role, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if got.UID == "" || len(got.Rules) != 1 || got.Rules[0].Resources[0] != "widgets" {
		t.Errorf("created %+v", got)
	}
}
