package rbac_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/rbac"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/internal/testschemas"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
)

// env is a real Store on etcd serving the built-in RBAC kinds and
// tools.example.com, with the default and schema policies reconciled
// and an Authorizer and Aggregator running on it.
type env struct {
	reg   *schemas.Registry
	store *engine.Store
	authz *rbac.Authorizer
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvAggregating(t, nil)
}

// newEnvAggregating is newEnv with the Aggregator writing through
// writer(store) (the store itself when writer is nil).
func newEnvAggregating(t *testing.T, writer func(*engine.Store) engine.Writer) *env {
	t.Helper()
	dir := t.TempDir()
	testschemas.WriteFiles(t, dir, map[string]string{"tools.yaml": testschemas.Tools})
	reg, _, err := schemas.NewLoader(dir, builtin.Schemas()).Load()
	if err != nil {
		t.Fatal(err)
	}
	storage := etcdstorage.New(etcdtest.Start(t))
	caches := watchcache.New(storage, watchcache.Config{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(caches.Close)
	regFn := func() *schemas.Registry { return reg }
	e := &env{reg: reg, authz: rbac.New(rbac.Config{Registry: regFn, Logger: slog.New(slog.DiscardHandler)})}
	e.store = engine.NewStore(storage, engine.Options{Cache: caches, WriteChecks: e.authz.WriteChecks(), Mutators: rbac.Mutators(),
		Logger: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	for _, p := range []rbac.Policy{rbac.DefaultPolicy(), rbac.SchemaPolicy(reg)} {
		if err := rbac.Reconcile(ctx, e.store, reg, p); err != nil {
			t.Fatal(err)
		}
	}
	go e.authz.Run(ctx, e.store)
	var aggWriter engine.Writer = e.store
	if writer != nil {
		aggWriter = writer(e.store)
	}
	agg := &rbac.Aggregator{Authorizer: e.authz, Objects: aggWriter, Registry: regFn, Logger: slog.New(slog.DiscardHandler)}
	go agg.Run(ctx)
	eventually(t, "synced", e.authz.Synced)
	return e
}

// eventually waits for cond, which the watches make true soon.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (e *env) rv(plural string) *schemas.ResourceVersion {
	return e.reg.Lookup(rbac.Group, rbac.Version, plural)
}

// create writes an RBAC object as u (nil: specd itself).
func (e *env) create(u user.Info, plural, ns, body string) error {
	ctx := rbac.WithInternalUser(context.Background())
	if u != nil {
		ctx = request.WithUser(context.Background(), u)
	}
	_, err := e.store.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: e.rv(plural), Namespace: ns}, Body: []byte(body), Options: engine.WriteOptions{}})
	return err
}

func (e *env) mustCreate(t *testing.T, plural, ns, body string) {
	t.Helper()
	if err := e.create(nil, plural, ns, body); err != nil {
		t.Fatalf("create %s: %v", plural, err)
	}
}

func (e *env) allowed(u user.Info, verb, group, resource, ns string) bool {
	d, _, err := e.authz.Authorize(context.Background(), authorizer.AttributesRecord{User: u, Verb: verb,
		APIGroup: group, Resource: resource, Namespace: ns, ResourceRequest: true})
	return err == nil && d == authorizer.DecisionAllow
}

func binding(ns, name, roleKind, role, userName string) string {
	return fmt.Sprintf(`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":%q,"namespace":%q},
	  "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":%q,"name":%q},
	  "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":%q}]}`, name, ns, roleKind, role, userName)
}

func roleJSON(ns, name, rules string) string {
	return fmt.Sprintf(`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":%q,"namespace":%q},"rules":%s}`, name, ns, rules)
}

// TestBindingSeenByTheCache: a RoleBinding to view allows its user once
// the watch has brought it (view holds the schema's resources through
// aggregation), in its namespace only; deleted, it allows no more.
func TestBindingSeenByTheCache(t *testing.T) {
	e := newEnv(t)
	alice := &user.DefaultInfo{Name: "alice", Groups: []string{user.AllAuthenticated}}
	if e.allowed(alice, "list", "tools.example.com", "hammers", "a") {
		t.Fatal("alice may list hammers before any binding")
	}
	e.mustCreate(t, "rolebindings", "a", binding("a", "alice-view", "ClusterRole", "view", "alice"))
	eventually(t, "allowed after the binding", func() bool { return e.allowed(alice, "list", "tools.example.com", "hammers", "a") })
	if e.allowed(alice, "list", "tools.example.com", "hammers", "b") || e.allowed(alice, "create", "tools.example.com", "hammers", "a") {
		t.Error("view in a lets alice list in b or create in a")
	}
	if e.allowed(alice, "list", "rbac.authorization.k8s.io", "roles", "a") {
		t.Error("view lets alice read roles")
	}
	if _, err := e.store.Delete(context.Background(), engine.Ref{Version: e.rv("rolebindings"), Namespace: "a", Name: "alice-view"}, engine.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "denied after the delete", func() bool { return !e.allowed(alice, "list", "tools.example.com", "hammers", "a") })
}

// TestDefaultPolicyServed: the reconciled default policy decides as
// kube's does.
func TestDefaultPolicyServed(t *testing.T) {
	e := newEnv(t)
	anon := &user.DefaultInfo{Name: user.Anonymous, Groups: []string{user.AllUnauthenticated}}
	someone := &user.DefaultInfo{Name: "someone", Groups: []string{user.AllAuthenticated}}
	path := func(u user.Info, p string) bool {
		d, _, _ := e.authz.Authorize(context.Background(), authorizer.AttributesRecord{User: u, Verb: "get", Path: p})
		return d == authorizer.DecisionAllow
	}
	if !path(anon, "/readyz") || !path(anon, "/version") || path(anon, "/apis") {
		t.Error("anonymous: want /readyz and /version, not /apis")
	}
	if !path(someone, "/apis/tools.example.com/v1") || !path(someone, "/openapi/v3") || path(someone, "/metrics") {
		t.Error("authenticated: want discovery and openapi, not /metrics")
	}
	if !e.allowed(someone, "create", "authorization.k8s.io", "selfsubjectaccessreviews", "") {
		t.Error("authenticated may not create selfsubjectaccessreviews")
	}
	e.mustCreate(t, "rolebindings", "a", binding("a", "admin", "ClusterRole", "admin", "ann"))
	ann := &user.DefaultInfo{Name: "ann"}
	eventually(t, "admin aggregated", func() bool {
		return e.allowed(ann, "delete", "tools.example.com", "hammers", "a") && e.allowed(ann, "create", "rbac.authorization.k8s.io", "rolebindings", "a")
	})
}

// TestEscalationPrevented: a user can write a Role or binding only for
// rules they hold, unless they may escalate or bind; roleRef is fixed.
func TestEscalationPrevented(t *testing.T) {
	e := newEnv(t)
	bob := &user.DefaultInfo{Name: "bob", Groups: []string{user.AllAuthenticated}}
	e.mustCreate(t, "roles", "a", roleJSON("a", "rbac-writer", `[
	  {"apiGroups":["rbac.authorization.k8s.io"],"resources":["roles","rolebindings"],"verbs":["create","update","patch"]},
	  {"apiGroups":["tools.example.com"],"resources":["hammers"],"verbs":["get","list"]}]`))
	e.mustCreate(t, "rolebindings", "a", binding("a", "bob", "Role", "rbac-writer", "bob"))
	eventually(t, "bob's rights cached", func() bool { return e.allowed(bob, "list", "tools.example.com", "hammers", "a") })

	err := e.create(bob, "roles", "a", roleJSON("a", "deleter", `[{"apiGroups":["tools.example.com"],"resources":["hammers"],"verbs":["delete","get"]}]`))
	want := `roles.rbac.authorization.k8s.io "deleter" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:["tools.example.com"], Resources:["hammers"], Verbs:["delete"]}`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("escalating role: %v\nwant 403: %s", err, want)
	}
	if err := e.create(bob, "roles", "a", roleJSON("a", "reader", `[{"apiGroups":["tools.example.com"],"resources":["hammers"],"verbs":["get"]}]`)); err != nil {
		t.Fatalf("role bob holds: %v", err)
	}
	// admin gathers its rules by aggregation, which the Aggregator writes
	// a moment after start: until then binding to it escalates nothing.
	e.mustCreate(t, "rolebindings", "a", binding("a", "ann-admin", "ClusterRole", "admin", "ann"))
	eventually(t, "admin aggregated", func() bool {
		return e.allowed(&user.DefaultInfo{Name: "ann"}, "delete", "tools.example.com", "hammers", "a")
	})
	err = e.create(bob, "rolebindings", "a", binding("a", "bob-admin", "ClusterRole", "admin", "bob"))
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "is attempting to grant RBAC permissions not currently held") {
		t.Fatalf("binding to admin: %v, want 403", err)
	}

	e.mustCreate(t, "roles", "a", roleJSON("a", "escalator", `[
	  {"apiGroups":["rbac.authorization.k8s.io"],"resources":["roles"],"verbs":["escalate"]},
	  {"apiGroups":["rbac.authorization.k8s.io"],"resources":["clusterroles"],"resourceNames":["admin"],"verbs":["bind"]}]`))
	e.mustCreate(t, "rolebindings", "a", binding("a", "bob-escalates", "Role", "escalator", "bob"))
	eventually(t, "escalate cached", func() bool { return e.allowed(bob, "escalate", "rbac.authorization.k8s.io", "roles", "a") })
	if err := e.create(bob, "roles", "a", roleJSON("a", "deleter", `[{"apiGroups":["tools.example.com"],"resources":["hammers"],"verbs":["delete"]}]`)); err != nil {
		t.Errorf("role with escalate: %v", err)
	}
	if err := e.create(bob, "rolebindings", "a", binding("a", "bob-admin", "ClusterRole", "admin", "bob")); err != nil {
		t.Errorf("binding with bind on admin: %v", err)
	}
	if err := e.create(bob, "rolebindings", "b", binding("b", "bob-admin", "ClusterRole", "admin", "bob")); !apierrors.IsForbidden(err) {
		t.Errorf("binding in another namespace: %v, want 403", err)
	}

	_, err = e.store.Patch(rbac.WithInternalUser(context.Background()), engine.PatchRequest{Ref: engine.Ref{Version: e.rv("rolebindings"), Namespace: "a", Name: "bob"}, Type: engine.MergePatchType, Patch: []byte(`{"roleRef":{"name":"reader"}}`), Options: engine.PatchOptions{}})

	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "cannot change roleRef") {
		t.Errorf("roleRef change: %v, want 422 cannot change roleRef", err)
	}
}

// TestBindingDefaults: a binding as client-go's typed client sends it,
// roleRef.apiGroup "" and a User subject without apiGroup, is stored with
// kube's defaults, and grants its role.
func TestBindingDefaults(t *testing.T) {
	e := newEnv(t)
	e.mustCreate(t, "rolebindings", "a", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"b","namespace":"a"},
	  "roleRef":{"apiGroup":"","kind":"ClusterRole","name":"view"},"subjects":[{"kind":"User","name":"alice"}]}`)
	got, err := e.store.Get(context.Background(), engine.Ref{Version: e.rv("rolebindings"), Namespace: "a", Name: "b"})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"roleRef.apiGroup": rbac.Group, "subjects.0.apiGroup": rbac.Group} {
		if v := gjson.GetBytes(got, path).String(); v != want {
			t.Errorf("%s = %q, want %q", path, v, want)
		}
	}
	alice := &user.DefaultInfo{Name: "alice", Groups: []string{user.AllAuthenticated}}
	eventually(t, "alice may list hammers in a", func() bool { return e.allowed(alice, "list", "tools.example.com", "hammers", "a") })
}
