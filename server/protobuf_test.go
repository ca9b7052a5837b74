package server

import (
	"net/http"
	"sync"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	rbacapply "k8s.io/client-go/applyconfigurations/rbac/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// contentTypes records the Content-Type of every answer a client gets, so
// a test can tell protobuf answers from JSON ones the client would
// decode as well.
type contentTypes struct {
	mu   sync.Mutex
	seen map[string]int
	next http.RoundTripper
}

func (c *contentTypes) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err == nil {
		c.mu.Lock()
		c.seen[resp.Header.Get("Content-Type")]++
		c.mu.Unlock()
	}
	return resp, err
}

// onlyProtobuf fails t unless every answer recorded was protobuf.
func (c *contentTypes) onlyProtobuf(t *testing.T) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for ct, n := range c.seen {
		if ct != contentTypeProtobuf && ct != contentTypeProtobufWatch {
			t.Errorf("%d answers in %q, want only protobuf: %v", n, ct, c.seen)
		}
	}
	if len(c.seen) == 0 {
		t.Error("no answer recorded")
	}
}

// protobufClientset is client-go's typed clientset as kubectl and
// controllers configure it: protobuf bodies, protobuf preferred.
func protobufClientset(t *testing.T, url string) (*kubernetes.Clientset, *contentTypes) {
	t.Helper()
	return recordedClientset(t, &rest.Config{Host: url, ContentConfig: rest.ContentConfig{ContentType: contentTypeProtobuf}})
}

// recordedClientset is the typed clientset of cfg, whose answers' types
// are recorded.
func recordedClientset(t *testing.T, cfg *rest.Config) (*kubernetes.Clientset, *contentTypes) {
	t.Helper()
	rec := &contentTypes{seen: map[string]int{}}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { rec.next = rt; return rec })
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs, rec
}

func readerRole(name string, verbs ...string) *rbacv1.Role {
	return &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"team": "shop"}},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"shop.example.com"}, Resources: []string{"widgets"}, Verbs: verbs}}}
}

// TestTypedClientProtobuf: the typed clientset creates, reads, lists,
// updates and deletes RBAC objects with every answer in protobuf, errors
// included, and client-go reads the errors' reasons from them.
func TestTypedClientProtobuf(t *testing.T) {
	cs, rec := protobufClientset(t, startSpecdWithBuiltins(t))
	ctx := t.Context()
	roles := cs.RbacV1().Roles("default")
	created, err := roles.Create(ctx, readerRole("reader", "get"), metav1.CreateOptions{})
	if err != nil || created.UID == "" || created.Rules[0].Verbs[0] != "get" || created.Labels["team"] != "shop" {
		t.Fatalf("create: %+v %v", created, err)
	}
	if _, err := roles.Create(ctx, readerRole("reader", "get"), metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Errorf("second create: %v, want AlreadyExists", err)
	}
	got, err := roles.Get(ctx, "reader", metav1.GetOptions{})
	if err != nil || got.ResourceVersion != created.ResourceVersion || got.CreationTimestamp.IsZero() {
		t.Fatalf("get: %+v %v", got, err)
	}
	got.Rules[0].Verbs = []string{"get", "list"}
	updated, err := roles.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil || len(updated.Rules[0].Verbs) != 2 || updated.ResourceVersion == got.ResourceVersion {
		t.Fatalf("update: %+v %v", updated, err)
	}
	if _, err := roles.Update(ctx, got, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("update at a stale resourceVersion: %v, want Conflict", err)
	}
	if _, err := roles.Get(ctx, "missing", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get missing: %v, want NotFound", err)
	} else if d := err.(apierrors.APIStatus).Status().Details; d == nil || d.Name != "missing" || d.Kind != "roles" {
		t.Errorf("get missing: details %+v", d)
	}
	apply := rbacapply.Role("applied", "default").WithRules(rbacapply.PolicyRule().
		WithAPIGroups("shop.example.com").WithResources("widgets").WithVerbs("list"))
	if applied, err := roles.Apply(ctx, apply, metav1.ApplyOptions{FieldManager: "test"}); err != nil || applied.Rules[0].Verbs[0] != "list" {
		t.Errorf("apply: %+v %v", applied, err)
	}
	stale := got.ResourceVersion
	err = roles.Delete(ctx, "reader", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &stale}})
	if !apierrors.IsConflict(err) {
		t.Errorf("delete with a stale precondition: %v, want Conflict (the protobuf DeleteOptions read)", err)
	}
	if err := roles.Delete(ctx, "reader", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := roles.Get(ctx, "reader", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: %v, want NotFound", err)
	}
	rec.onlyProtobuf(t)
}

// TestTypedClientProtobufList: a typed list in protobuf carries its
// ListMeta (resourceVersion, continue, remainingItemCount) and items.
func TestTypedClientProtobufList(t *testing.T) {
	cs, rec := protobufClientset(t, startSpecdWithBuiltins(t))
	ctx := t.Context()
	bindings := cs.RbacV1().ClusterRoleBindings()
	for _, name := range []string{"a", "b", "c"} {
		crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "alice"}}}
		if _, err := bindings.Create(ctx, crb, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
	}
	page, err := bindings.List(ctx, metav1.ListOptions{Limit: 2})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	if len(page.Items) != 2 || page.Continue == "" || page.ResourceVersion == "" ||
		page.RemainingItemCount == nil || *page.RemainingItemCount != 1 {
		t.Fatalf("first page: %d items, meta %+v", len(page.Items), page.ListMeta)
	}
	if s := page.Items[0].Subjects; len(s) != 1 || s[0].Name != "alice" || page.Items[0].RoleRef.Name != "view" {
		t.Errorf("first item %+v", page.Items[0])
	}
	rest, err := bindings.List(ctx, metav1.ListOptions{Limit: 2, Continue: page.Continue})
	if err != nil || len(rest.Items) != 1 || rest.Items[0].Name != "c" || rest.Continue != "" {
		t.Fatalf("second page: %+v %v", rest, err)
	}
	if err := bindings.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatalf("delete collection: %v", err)
	}
	if left, err := bindings.List(ctx, metav1.ListOptions{}); err != nil || len(left.Items) != 0 {
		t.Fatalf("after delete collection: %+v %v", left, err)
	}
	rec.onlyProtobuf(t)
}

// TestTypedClientProtobufWatch: a typed watch reads protobuf frames with
// typed objects, bookmarks included.
func TestTypedClientProtobufWatch(t *testing.T) {
	cs, rec := protobufClientset(t, startSpecdWithBuiltins(t))
	ctx := t.Context()
	roles := cs.RbacV1().ClusterRoles()
	list, err := roles.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := roles.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "viewer"},
		Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/healthz"}, Verbs: []string{"get"}}}}
	created, err := roles.Create(ctx, role, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	patch := []byte(`{"metadata":{"labels":{"seen":"yes"}}}`)
	if _, err := roles.Patch(ctx, "viewer", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("patch: %v", err)
	}
	if err := roles.Delete(ctx, "viewer", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []watch.EventType{watch.Added, watch.Modified, watch.Deleted} {
		ev := <-w.ResultChan()
		got, ok := ev.Object.(*rbacv1.ClusterRole)
		if ev.Type != want || !ok || got.UID != created.UID || got.Rules[0].NonResourceURLs[0] != "/healthz" {
			t.Fatalf("event %s %#v, want %s of viewer", ev.Type, ev.Object, want)
		}
		if want == watch.Modified && got.Labels["seen"] != "yes" {
			t.Errorf("modified event without the label: %+v", got.ObjectMeta)
		}
	}
	rec.onlyProtobuf(t)
}

// TestTypedClientDefaultsToProtobuf: with no content type configured,
// client-go v0.37's typed clients of the built-in kinds still send
// protobuf and ask for it first (Accept: protobuf, then JSON).
func TestTypedClientDefaultsToProtobuf(t *testing.T) {
	cs, rec := recordedClientset(t, &rest.Config{Host: startSpecdWithBuiltins(t)})
	roles := cs.RbacV1().Roles("default")
	if _, err := roles.Create(t.Context(), readerRole("reader", "get"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create: %v", err)
	}
	if got, err := roles.Get(t.Context(), "reader", metav1.GetOptions{}); err != nil || got.Rules[0].Verbs[0] != "get" {
		t.Fatalf("get: %+v %v", got, err)
	}
	rec.onlyProtobuf(t)
}

// TestTypedClientProtobufCRD: apiextensions' typed client, which sends
// CRDs as protobuf (kube's e2e suite creates every CRD with it), creates,
// reads, lists, updates and deletes a CRD, every answer in protobuf.
func TestTypedClientProtobufCRD(t *testing.T) {
	rec := &contentTypes{seen: map[string]int{}}
	cfg := &rest.Config{Host: startSpecdWithBuiltins(t), ContentConfig: rest.ContentConfig{ContentType: contentTypeProtobuf}}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { rec.next = rt; return rec })
	cs, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	crds, ctx := cs.ApiextensionsV1().CustomResourceDefinitions(), t.Context()
	created, err := crds.Create(ctx, gizmoCRD(), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	props := created.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties
	if created.UID == "" || props["spec"].Properties["size"].Type != "integer" || created.Spec.Names.Kind != "Gizmo" {
		t.Fatalf("create answered %+v", created)
	}
	got, err := crds.Get(ctx, created.Name, metav1.GetOptions{})
	if err != nil || got.ResourceVersion != created.ResourceVersion {
		t.Fatalf("get: %+v %v", got, err)
	}
	got.Spec.Names.ShortNames = []string{"gz"}
	updated, err := crds.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil || len(updated.Spec.Names.ShortNames) != 1 {
		t.Fatalf("update: %+v %v", updated, err)
	}
	if list, err := crds.List(ctx, metav1.ListOptions{}); err != nil || len(list.Items) != 1 || list.Items[0].Name != created.Name {
		t.Fatalf("list: %+v %v", list, err)
	}
	if err := crds.Delete(ctx, created.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := crds.Get(ctx, created.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: %v, want NotFound", err)
	}
	rec.onlyProtobuf(t)
}

// gizmoCRD declares gizmos.toys.example.com, namespaced, in v1.
func gizmoCRD() *apiextensionsv1.CustomResourceDefinition {
	schema := &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"size": {Type: "integer"}}},
	}}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gizmos.toys.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "toys.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gizmos", Singular: "gizmo", Kind: "Gizmo", ListKind: "GizmoList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: schema}}},
		},
	}
}
