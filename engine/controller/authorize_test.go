package controller_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/component-helpers/auth/rbac/validation"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/controller"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/plugins/identity"
	"github.com/specd-io/specd/schemas"
)

// policyAuthorizer allows what cluster roles bound to a user by name
// grant, as RBAC does for a resource request (rule coverage by
// k8s.io/component-helpers), and records every request it is asked.
type policyAuthorizer struct {
	roles    []rbacv1.ClusterRole
	bindings []rbacv1.ClusterRoleBinding

	mu    sync.Mutex
	asked []authorizer.Attributes
}

func (p *policyAuthorizer) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	p.mu.Lock()
	p.asked = append(p.asked, a)
	p.mu.Unlock()
	resource := a.GetResource()
	if a.GetSubresource() != "" {
		resource += "/" + a.GetSubresource()
	}
	want := []rbacv1.PolicyRule{{Verbs: []string{a.GetVerb()}, APIGroups: []string{a.GetAPIGroup()}, Resources: []string{resource}}}
	for _, b := range p.bindings {
		if !slices.ContainsFunc(b.Subjects, func(s rbacv1.Subject) bool { return s.Kind == rbacv1.UserKind && s.Name == a.GetUser().GetName() }) {
			continue
		}
		for _, r := range p.roles {
			if r.Name != b.RoleRef.Name {
				continue
			}
			if ok, _ := validation.Covers(r.Rules, want); ok {
				return authorizer.DecisionAllow, "", nil
			}
		}
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// users are the distinct users the authorizer was asked about.
func (p *policyAuthorizer) users() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, a := range p.asked {
		if n := a.GetUser().GetName(); !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// asPlugin calls a reconciler with the plugin's user in the context, as
// the plugin host's callbacks carry it.
type asPlugin struct {
	hook.Reconciler
	plugin string
}

func (a asPlugin) Reconcile(ctx context.Context, plugin string, req hook.ReconcileRequest) (hook.ReconcileResult, error) {
	return a.Reconciler.Reconcile(request.WithUser(ctx, identity.User(a.plugin)), plugin, req)
}

// TestClientPluginPolicy: the fleet controller, acting as its own user
// through a Client that authorizes each call by the policy PluginPolicy
// makes of the example schemas, keeps its fleet's ships.
func TestClientPluginPolicy(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	roles, bindings := identity.PluginPolicy(e.reg)
	authz := &policyAuthorizer{roles: roles, bindings: bindings}
	plugin := e.client.WithAuthorizer(authz)
	e.runManager(t, asPlugin{Reconciler: &fleetController{client: plugin}, plugin: "fleet-controller"})

	if _, err := e.client.Create(ctx, fleetsRef, "sea", fleet("north", 2)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "two ships", e.shipsAre(t, "north-0", "north-1"))
	if _, err := e.client.Patch(ctx, fleetsRef, "sea", "north", "merge", []byte(`{"spec":{"replicas":1}}`), ""); err != nil {
		t.Fatal(err)
	}
	eventually(t, "one ship", e.shipsAre(t, "north-0"))
	if got := authz.users(); !slices.Equal(got, []string{"system:plugin:fleet-controller"}) {
		t.Errorf("authorized users = %v, want only the plugin's", got)
	}

	// Another plugin's user has no rights on fleet.example.com.
	other := request.WithUser(ctx, identity.User("ship-policy-of-another-group"))
	if _, err := plugin.Get(other, shipsRef, "sea", "north-0"); !apierrors.IsForbidden(err) {
		t.Errorf("a user without a binding: err = %v, want 403", err)
	}
}

// denyAll refuses everything, recording what it was asked.
type denyAll struct {
	reason string
	err    error
	asked  []authorizer.Attributes
}

func (d *denyAll) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	d.asked = append(d.asked, a)
	return authorizer.DecisionDeny, d.reason, d.err
}

// TestClientForbidden: a call the authorizer refuses is kube's 403
// Forbidden Status, with RBAC's message, and nothing is written.
func TestClientForbidden(t *testing.T) {
	e := newEnv(t)
	ctx := request.WithUser(context.Background(), identity.User("fleet"))
	deny := &denyAll{}
	c := e.client.WithAuthorizer(deny)
	const user = `User "system:plugin:fleet"`
	tests := map[string]struct {
		call func() error
		want string
	}{
		"create": {
			call: func() error {
				_, err := c.Create(ctx, shipsRef, "sea", []byte(`{"metadata":{"name":"a"}}`))
				return err
			},
			want: `ships.fleet.example.com is forbidden: ` + user + ` cannot create resource "ships" in API group "fleet.example.com" in the namespace "sea"`,
		},
		"get": {
			call: func() error { _, err := c.Get(ctx, shipsRef, "sea", "a"); return err },
			want: `ships.fleet.example.com "a" is forbidden: ` + user + ` cannot get resource "ships" in API group "fleet.example.com" in the namespace "sea"`,
		},
		"list everywhere": {
			call: func() error { _, err := c.List(ctx, shipsRef, "", ""); return err },
			want: `ships.fleet.example.com is forbidden: ` + user + ` cannot list resource "ships" in API group "fleet.example.com" at the cluster scope`,
		},
		"update status": {
			call: func() error { _, err := c.UpdateStatus(ctx, fleetsRef, "sea", "n", []byte(`{}`)); return err },
			want: `fleets.fleet.example.com "n" is forbidden: ` + user + ` cannot update resource "fleets/status" in API group "fleet.example.com" in the namespace "sea"`,
		},
		"patch": {
			call: func() error { _, err := c.Patch(ctx, fleetsRef, "sea", "n", "merge", []byte(`{}`), ""); return err },
			want: `fleets.fleet.example.com "n" is forbidden: ` + user + ` cannot patch resource "fleets" in API group "fleet.example.com" in the namespace "sea"`,
		},
		"delete": {
			call: func() error { return c.Delete(ctx, shipsRef, "sea", "a", "") },
			want: `ships.fleet.example.com "a" is forbidden: ` + user + ` cannot delete resource "ships" in API group "fleet.example.com" in the namespace "sea"`,
		},
		"update of an unknown resource": {
			call: func() error {
				_, err := c.Update(ctx, hook.ResourceRef{Group: "x.io", Version: "v1", Resource: "things"}, "sea", "a", []byte(`{}`))
				return err
			},
			want: `things.x.io "a" is forbidden: ` + user + ` cannot update resource "things" in API group "x.io" in the namespace "sea"`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := tc.call()
			var se *apierrors.StatusError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v (%T), want a StatusError", err, err)
			}
			st := se.Status()
			if st.Code != http.StatusForbidden || st.Reason != "Forbidden" || st.Message != tc.want {
				t.Errorf("status = %d %s %q\nwant 403 Forbidden %q", st.Code, st.Reason, st.Message, tc.want)
			}
		})
	}
	if _, err := e.client.Get(context.Background(), shipsRef, "sea", "a"); !apierrors.IsNotFound(err) {
		t.Errorf("after a refused create: get = %v, want 404", err)
	}
	for _, a := range deny.asked {
		if a.GetUser().GetName() != "system:plugin:fleet" || !slices.Contains(a.GetUser().GetGroups(), "system:plugins") || !a.IsResourceRequest() {
			t.Errorf("asked %+v, want a resource request of the plugin's user", a)
		}
	}
}

// TestClientAuthorizerTrouble: the authorizer's reason follows RBAC's
// message; an authorizer error is a 500, as the server's filter answers;
// a call with no user is refused without asking.
func TestClientAuthorizerTrouble(t *testing.T) {
	e := newEnv(t)
	ctx := request.WithUser(context.Background(), &user.DefaultInfo{Name: "bob"})
	_, err := e.client.WithAuthorizer(&denyAll{reason: "not today"}).Get(ctx, shipsRef, "sea", "a")
	want := `ships.fleet.example.com "a" is forbidden: User "bob" cannot get resource "ships" in API group "fleet.example.com" in the namespace "sea": not today`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("with a reason: %v\nwant %s", err, want)
	}
	_, err = e.client.WithAuthorizer(&denyAll{err: errors.New("cache not synced")}).Get(ctx, shipsRef, "sea", "a")
	if !apierrors.IsInternalError(err) {
		t.Errorf("authorizer error: %v, want a 500", err)
	}
	deny := &denyAll{}
	_, err = e.client.WithAuthorizer(deny).Get(context.Background(), shipsRef, "sea", "a")
	if !apierrors.IsForbidden(err) || len(deny.asked) != 0 {
		t.Errorf("no user: %v (asked %d), want 403 without asking", err, len(deny.asked))
	}
}

// userAdmission records the user of each admission call.
type userAdmission struct {
	allowAll
	mu    sync.Mutex
	users []string
}

func (u *userAdmission) Validate(ctx context.Context, plugin string, req hook.AdmissionRequest) ([]hook.FieldError, error) {
	u.mu.Lock()
	u.users = append(u.users, req.UserInfo.Username)
	u.mu.Unlock()
	return u.allowAll.Validate(ctx, plugin, req)
}

// TestClientCarriesUser: a plugin's write through the Client reaches the
// Store's admission plugins as the plugin's user.
func TestClientCarriesUser(t *testing.T) {
	e := newEnv(t)
	adm := &userAdmission{}
	store := engine.NewStore(etcdstorage.New(e.etcd), engine.Options{Admission: func(*engine.Store) hook.Admission { return adm }, Logger: slog.New(slog.DiscardHandler)})
	ctx := request.WithUser(context.Background(), identity.User("fleet-controller"))
	roles, bindings := identity.PluginPolicy(e.reg)
	c := controller.NewClient(store, func() *schemas.Registry { return e.reg }).WithAuthorizer(&policyAuthorizer{roles: roles, bindings: bindings})
	ship := `{"apiVersion":"fleet.example.com/v1","kind":"Ship","metadata":{"name":"a"},"spec":{"class":"cargo"}}`
	if _, err := c.Create(ctx, shipsRef, "sea", []byte(ship)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(adm.users, []string{"system:plugin:fleet-controller"}) {
		t.Errorf("admission users = %v, want the plugin's", adm.users)
	}
}
