package identity_test

import (
	"path/filepath"
	"reflect"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/component-helpers/auth/rbac/validation"

	"github.com/specd-io/specd/plugins/identity"
	"github.com/specd-io/specd/schemas"
)

// TestPluginPolicyExamples: the example schemas bind ship-policy (default,
// validate) and fleet-controller (reconcile) in fleet.example.com; each
// gets a role over every fleet.example.com resource, bound to its user.
func TestPluginPolicyExamples(t *testing.T) {
	reg, err := schemas.Load(filepath.Join("..", "..", "examples", "schemas"))
	if err != nil {
		t.Fatal(err)
	}
	roles, bindings := identity.PluginPolicy(reg)
	rule := rbacv1.PolicyRule{
		APIGroups: []string{"fleet.example.com"},
		Resources: []string{"fleets", "fleets/scale", "fleets/status", "ships", "ships/status"},
		Verbs:     []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"},
	}
	events := rbacv1.PolicyRule{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"},
		Verbs: []string{"create", "update", "patch"}}
	var names []string
	for i, p := range []string{"fleet-controller", "ship-policy"} {
		if i >= len(roles) || i >= len(bindings) {
			t.Fatalf("roles %d, bindings %d, want one each for fleet-controller and ship-policy", len(roles), len(bindings))
		}
		r, b := roles[i], bindings[i]
		names = append(names, r.Name)
		if r.Name != "system:specd:plugin:"+p || b.Name != r.Name {
			t.Errorf("role %q binding %q, want system:specd:plugin:%s", r.Name, b.Name, p)
		}
		if want := []rbacv1.PolicyRule{rule, events}; !reflect.DeepEqual(r.Rules, want) {
			t.Errorf("%s rules = %+v\nwant %+v", p, r.Rules, want)
		}
		for _, m := range []map[string]string{r.Annotations, b.Annotations} {
			if m["rbac.authorization.kubernetes.io/autoupdate"] != "true" {
				t.Errorf("%s annotations = %v, want autoupdate true", p, m)
			}
		}
		wantSubject := []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "system:plugin:" + p}}
		wantRef := rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: r.Name}
		if !reflect.DeepEqual(b.Subjects, wantSubject) || b.RoleRef != wantRef {
			t.Errorf("%s binding = %+v %+v", p, b.Subjects, b.RoleRef)
		}
	}
	if len(roles) != 2 || len(bindings) != 2 {
		t.Errorf("roles %v, want only the two plugins'", names)
	}
}

// TestPluginPolicyCoversFleetController: every call
// examples/plugins/fleet-controller makes is covered by its role, and no
// call outside its group is.
func TestPluginPolicyCoversFleetController(t *testing.T) {
	reg, err := schemas.Load(filepath.Join("..", "..", "examples", "schemas"))
	if err != nil {
		t.Fatal(err)
	}
	roles, _ := identity.PluginPolicy(reg)
	var rules []rbacv1.PolicyRule
	for _, r := range roles {
		if r.Name == identity.RoleName("fleet-controller") {
			rules = r.Rules
		}
	}
	does := func(verb, resource string) []rbacv1.PolicyRule {
		return []rbacv1.PolicyRule{{APIGroups: []string{"fleet.example.com"}, Resources: []string{resource}, Verbs: []string{verb}}}
	}
	for _, verb := range []string{"list", "get", "create", "patch", "delete"} {
		if ok, missing := validation.Covers(rules, does(verb, "ships")); !ok {
			t.Errorf("fleet-controller may not %s ships: missing %v", verb, missing)
		}
	}
	for _, g := range []string{"", "events.k8s.io"} {
		for _, verb := range []string{"create", "update", "patch"} {
			ev := []rbacv1.PolicyRule{{APIGroups: []string{g}, Resources: []string{"events"}, Verbs: []string{verb}}}
			if ok, missing := validation.Covers(rules, ev); !ok {
				t.Errorf("fleet-controller may not %s events in %q: missing %v", verb, g, missing)
			}
		}
	}
	for _, other := range []rbacv1.PolicyRule{
		{APIGroups: []string{"library.example.com"}, Resources: []string{"books"}, Verbs: []string{"get"}},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"delete"}},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"create"}},
	} {
		if ok, _ := validation.Covers(rules, []rbacv1.PolicyRule{other}); ok {
			t.Errorf("fleet-controller may %v %v in %q; its role should stop at its group and recording events", other.Verbs, other.Resources, other.APIGroups)
		}
	}
}

// TestPluginPolicyGroups: a plugin bound in two groups gets a rule for
// each, sorted; a registry without bindings gets no policy; the objects
// are whole RBAC objects, ready to apply.
func TestPluginPolicyGroups(t *testing.T) {
	mk := func(group, plural string, hooks *schemas.Hooks, status bool) *schemas.Group {
		r := &schemas.Resource{Group: group, Kind: "K", Plural: plural, Scope: schemas.Namespaced, StorageVersion: "v1"}
		r.Versions = []*schemas.ResourceVersion{{Resource: r, Version: "v1", Storage: true, Hooks: hooks, StatusSubresource: status}}
		return &schemas.Group{Name: group, Resources: []*schemas.Resource{r}}
	}
	reg := schemas.NewRegistry([]*schemas.Group{
		mk("a.io", "apples", &schemas.Hooks{Reconcile: "p"}, true),
		mk("b.io", "bees", &schemas.Hooks{Validate: "p"}, false),
		mk("c.io", "cats", nil, false),
	})
	roles, bindings := identity.PluginPolicy(reg)
	if len(roles) != 1 || len(bindings) != 1 {
		t.Fatalf("roles %d bindings %d, want 1 each", len(roles), len(bindings))
	}
	if roles[0].APIVersion != "rbac.authorization.k8s.io/v1" || roles[0].Kind != "ClusterRole" ||
		bindings[0].APIVersion != "rbac.authorization.k8s.io/v1" || bindings[0].Kind != "ClusterRoleBinding" {
		t.Errorf("type meta: %+v %+v", roles[0].TypeMeta, bindings[0].TypeMeta)
	}
	if r := roles[0].Rules; len(r) != 3 || r[2].Resources[0] != "events" || r[0].APIGroups[0] != "a.io" || r[1].APIGroups[0] != "b.io" ||
		!reflect.DeepEqual(r[0].Resources, []string{"apples", "apples/status"}) || !reflect.DeepEqual(r[1].Resources, []string{"bees"}) {
		t.Errorf("rules = %+v", r)
	}
	if roles, bindings := identity.PluginPolicy(schemas.NewRegistry(nil)); len(roles)+len(bindings) != 0 {
		t.Errorf("no bindings: %v %v", roles, bindings)
	}
}
