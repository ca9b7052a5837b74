package server

import (
	"log/slog"
	"net/http/httptest"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/configdata"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
	"github.com/specd-io/specd/schemas/builtin/gotypes"
)

// startSpecdWithSMP serves the example and built-in schemas from an
// engine wired as specd serve wires it for strategic merge patches (and
// ConfigMaps), on an embedded etcd; it returns the server's URL.
func startSpecdWithSMP(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts etcd")
	}
	reg, _, err := schemas.NewLoader("../examples/schemas", builtin.Schemas()).Load()
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	store := engine.NewStore(etcdstorage.New(etcdtest.Start(t)), engine.Options{Logger: quiet,
		Mutators: configdata.Mutators(), WriteChecks: configdata.WriteChecks(), StrategicPatchMeta: gotypes.PatchMeta})
	srv := httptest.NewServer(New(Config{Registry: func() *schemas.Registry { return reg }, Store: store, Logger: quiet}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestStrategicMergePatchTyped drives strategic merge patches of built-in
// kinds with client-go's typed clientset, as kubectl and Helm send them.
func TestStrategicMergePatchTyped(t *testing.T) {
	url := startSpecdWithSMP(t)
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: url})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	cms := cs.CoreV1().ConfigMaps("default")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Data: map[string]string{"a": "1", "b": "2"}}
	if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := cms.Patch(ctx, "c", types.StrategicMergePatchType, []byte(`{"data":{"b":null,"c":"3"}}`), metav1.PatchOptions{FieldManager: "smp"})
	if err != nil || len(got.Data) != 2 || got.Data["a"] != "1" || got.Data["c"] != "3" {
		t.Fatalf("keys added and removed: %v %v", err, got.Data)
	}
	// The empty map is dropped, as kube's encoding drops it.
	if got, err = cms.Patch(ctx, "c", types.StrategicMergePatchType, []byte(`{"data":{"$patch":"delete"}}`), metav1.PatchOptions{}); err != nil || got.Data != nil {
		t.Fatalf("$patch: delete: %v %v", err, got.Data)
	}

	roles := cs.RbacV1().Roles("default")
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"list"}},
	}}
	if _, err := roles.Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	r, err := roles.Patch(ctx, "r", types.StrategicMergePatchType, []byte(`{"rules":[{"apiGroups":["apps"],"resources":["deployments"],"verbs":["watch"]}]}`), metav1.PatchOptions{})
	if err != nil || len(r.Rules) != 1 || r.Rules[0].Resources[0] != "deployments" {
		t.Fatalf("rules, a list without a merge key, replaced: %v %v", err, r.Rules)
	}

	bindings := cs.RbacV1().RoleBindings("default")
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "b"}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "r"},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: "alice"}, {Kind: "User", Name: "bob"}}}
	if _, err := bindings.Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	b, err := bindings.Patch(ctx, "b", types.StrategicMergePatchType, []byte(`{"subjects":[{"kind":"User","name":"carol"}]}`), metav1.PatchOptions{})
	if err != nil || len(b.Subjects) != 1 || b.Subjects[0].Name != "carol" || b.RoleRef.Name != "r" {
		t.Fatalf("subjects replaced: %v %v", err, b)
	}
}

// TestStrategicMergePatchRefused: a custom resource keeps kube's 415,
// whose list of types a built-in kind's 415 extends; a bad patch is
// kube's 400, and a wrong type for a field the 422 of the schema.
func TestStrategicMergePatchRefused(t *testing.T) {
	url := startSpecdWithSMP(t)
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: url})
	if err != nil {
		t.Fatal(err)
	}
	rc := cs.CoreV1().RESTClient()
	ctx := t.Context()
	create := rc.Post().AbsPath("/api/v1/namespaces/default/configmaps").SetHeader("Content-Type", "application/json").
		Body([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}}`)).Do(ctx)
	if err := create.Error(); err != nil {
		t.Fatal(err)
	}
	widget := rc.Post().AbsPath("/apis/shop.example.com/v1/namespaces/default/widgets").SetHeader("Content-Type", "application/json").
		Body([]byte(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"color":"red","size":3}}`)).Do(ctx)
	if err := widget.Error(); err != nil {
		t.Fatal(err)
	}
	const unknown = "the body of the request was in an unknown format - accepted media types include: "
	tests := map[string]struct {
		path, contentType, body string
		code                    int32
		message                 string
	}{
		"custom resource": {"/apis/shop.example.com/v1/namespaces/default/widgets/w1", "application/strategic-merge-patch+json", `{"spec":{"size":8}}`, 415,
			unknown + "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"},
		"built-in kind, unknown type": {"/api/v1/namespaces/default/configmaps/c", "application/x-patch", `{}`, 415,
			unknown + "application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml"},
		"not an object": {"/api/v1/namespaces/default/configmaps/c", "application/strategic-merge-patch+json", `[]`, 400,
			"json: cannot unmarshal array into Go value of type map[string]interface {}"},
		"wrong type": {"/api/v1/namespaces/default/configmaps/c", "application/strategic-merge-patch+json", `{"immutable":"yes"}`, 422, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := rc.Patch(types.PatchType(tc.contentType)).AbsPath(tc.path).Body([]byte(tc.body)).Do(ctx).Error()
			st, ok := err.(apierrors.APIStatus)
			if !ok || st.Status().Code != tc.code || (tc.message != "" && st.Status().Message != tc.message) {
				t.Fatalf("%v, want a %d %q", err, tc.code, tc.message)
			}
		})
	}
}
