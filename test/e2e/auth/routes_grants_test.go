package auth

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/test/e2e/harness"
)

// target is a resource or subresource of one group version, in
// routeNamespace when namespaced.
type target struct {
	group, version, resource, subresource, namespace string
	kind                                             *metav1.GroupVersionKind // of its objects; nil when discovery names none
}

func (tg target) collection() string {
	p := "/apis/" + tg.group + "/" + tg.version
	if tg.group == "" {
		p = "/api/" + tg.version
	}
	if tg.namespace != "" {
		p += "/namespaces/" + tg.namespace
	}
	return p + "/" + tg.resource
}

func (tg target) object() string {
	p := tg.collection() + "/" + madeUpName
	if tg.subresource != "" {
		p += "/" + tg.subresource
	}
	return p
}

// rbacResource is the resource as an RBAC rule names it.
func (tg target) rbacResource() string {
	if tg.subresource != "" {
		return tg.resource + "/" + tg.subresource
	}
	return tg.resource
}

// body is the least object of the kind: a create or update that passes
// authorization may still be refused as invalid (422).
func (tg target) body() string {
	meta := map[string]any{"name": madeUpName}
	if tg.namespace != "" {
		meta["namespace"] = tg.namespace
	}
	obj := map[string]any{"metadata": meta}
	if tg.kind != nil {
		obj["apiVersion"] = metav1.GroupVersion{Group: tg.kind.Group, Version: tg.kind.Version}.String()
		obj["kind"] = tg.kind.Kind
	}
	b, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// collectionVerbs are the verbs sent to a resource's collection rather
// than to one object of it.
var collectionVerbs = map[string]bool{"list": true, "watch": true, "create": true, "deletecollection": true}

// allNamespaces marks the grant of a namespaced resource's list or watch
// in every namespace. Its key sorts right after the grant of the same
// verb in routeNamespace, whose Role user is then its neighbour, who must
// be denied.
const allNamespaces = " (all namespaces)"

// resourceCase is the request of verb on tg, as kube's clients send it;
// scope is allNamespaces or nothing.
func (w *routeWalk) resourceCase(t *testing.T, tg target, verb string, scope ...string) routeCase {
	c := routeCase{verb: verb, path: tg.object(),
		denied: denial{group: tg.group, resource: tg.resource, subresource: tg.subresource, namespace: tg.namespace, name: madeUpName}}
	if tg.subresource == "" && collectionVerbs[verb] {
		c.path, c.denied.name = tg.collection(), ""
	}
	if tg.group == "" && tg.resource == "namespaces" && c.denied.name != "" {
		// kube's request info takes /api/v1/namespaces/NAME as in the
		// namespace NAME, and its 403 says so.
		c.denied.namespace = c.denied.name
	}
	c.name = verb + " " + tg.group + "/" + tg.version + "/" + tg.rbacResource() + strings.Join(scope, "")
	switch verb {
	case "get":
		c.method = http.MethodGet
	case "list":
		c.method, c.path = http.MethodGet, c.path+queryOf("limit", "1")
	case "watch":
		c.method, c.path = http.MethodGet, c.path+queryOf("watch", "true", "timeoutSeconds", "5", "labelSelector", nothingSelector)
	case "create":
		c.method, c.body = http.MethodPost, tg.body()
	case "update":
		c.method, c.body = http.MethodPut, tg.body()
	case "patch":
		c.method, c.body, c.contentType = http.MethodPatch, "{}", "application/merge-patch+json"
	case "delete":
		c.method = http.MethodDelete
	case "deletecollection":
		c.method, c.path = http.MethodDelete, c.path+queryOf("labelSelector", nothingSelector)
	default:
		t.Errorf("%s lists verb %q, which the walk does not know how to send", tg.collection(), verb)
	}
	key := tg.group + "/" + tg.rbacResource() + " " + verb + strings.Join(scope, "")
	c.grant = w.grant(t, key, tg.namespace, rbacv1.PolicyRule{Verbs: []string{verb}, APIGroups: []string{tg.group}, Resources: []string{tg.rbacResource()}})
	return c
}

// defaultBindings are kube's bindings of every authenticated user to
// discovery, the self reviews and the public paths.
var defaultBindings = []string{"system:discovery", "system:basic-user", "system:public-info-viewer"}

// dropDefaultBindings deletes them, and waits until the RBAC indexes no
// longer let nobody read discovery.
func (w *routeWalk) dropDefaultBindings(t *testing.T) {
	t.Helper()
	for _, name := range defaultBindings {
		if a := w.adminDo(t, http.MethodDelete, rbacPath("", "clusterrolebindings")+"/"+name, "", ""); a.Code != http.StatusOK {
			t.Fatalf("delete clusterrolebinding %s: HTTP %d\n%s", name, a.Code, a.Body)
		}
	}
	ctx := harness.Context(t, rbacWait+harness.ClientTimeout)
	probe := routeCase{method: http.MethodGet, path: "/apis"}
	deadline := time.Now().Add(rbacWait)
	for w.send(t, ctx, probe, w.users.token(nobody)).Code != http.StatusForbidden {
		if time.Now().After(deadline) {
			t.Fatalf("%s still reads /apis %s after its bindings were deleted", nobody, rbacWait)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// grantWorkers create the grants' roles and bindings side by side.
const grantWorkers = 4

// createGrants creates the walk's namespace, then a Role or ClusterRole
// and its binding for each grant, as the admin.
func (w *routeWalk) createGrants(t *testing.T) {
	t.Helper()
	ns := corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: routeNamespace}}
	if !w.adminCreate(t, "/api/v1/namespaces", ns) {
		t.FailNow()
	}
	grants := make(chan *routeGrant)
	var wg sync.WaitGroup
	var failed atomic.Bool
	for range grantWorkers {
		wg.Go(func() {
			for g := range grants {
				if !w.createGrant(t, g) {
					failed.Store(true)
				}
			}
		})
	}
	for _, g := range w.grants {
		grants <- g
	}
	close(grants)
	wg.Wait()
	if failed.Load() {
		t.FailNow()
	}
}

func (w *routeWalk) createGrant(t *testing.T, g *routeGrant) bool {
	name := "route-walk-" + g.user
	meta := metav1.ObjectMeta{Name: name, Namespace: g.namespace}
	roleKind, bindingKind := "ClusterRole", "ClusterRoleBinding"
	if g.namespace != "" {
		roleKind, bindingKind = "Role", "RoleBinding"
	}
	role := rbacv1.Role{TypeMeta: rbacType(roleKind), ObjectMeta: meta, Rules: []rbacv1.PolicyRule{g.rule}}
	binding := rbacv1.RoleBinding{TypeMeta: rbacType(bindingKind), ObjectMeta: meta,
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: g.user}},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: roleKind, Name: name}}
	return w.adminCreate(t, rbacPath(g.namespace, roleKind), role) && w.adminCreate(t, rbacPath(g.namespace, bindingKind), binding)
}

// rbacType is the TypeMeta of an RBAC kind. A Role and a ClusterRole, a
// RoleBinding and a ClusterRoleBinding, have the same fields: the Role
// types serve for both.
func rbacType(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: kind}
}

// rbacPath is the collection of an RBAC kind (or resource), in namespace
// when it is not empty.
func rbacPath(namespace, kind string) string {
	resources := map[string]string{"Role": "roles", "ClusterRole": "clusterroles", "RoleBinding": "rolebindings", "ClusterRoleBinding": "clusterrolebindings"}
	resource, ok := resources[kind]
	if !ok {
		resource = kind
	}
	p := "/apis/" + rbacv1.SchemeGroupVersion.String()
	if namespace != "" {
		p += "/namespaces/" + namespace
	}
	return p + "/" + resource
}

// adminCreate creates obj, or says why not and returns false.
func (w *routeWalk) adminCreate(t *testing.T, path string, obj any) bool {
	b, err := json.Marshal(obj)
	if err != nil {
		t.Error(err)
		return false
	}
	if a := w.adminDo(t, http.MethodPost, path, "", string(b)); a.Code != http.StatusCreated {
		t.Errorf("POST %s: HTTP %d\n%s", path, a.Code, a.Body)
		return false
	}
	return true
}
