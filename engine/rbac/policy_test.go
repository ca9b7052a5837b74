package rbac

import (
	"context"
	"testing"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/specd-io/specd/schemas"
)

// policyAuthorizer holds the default and schema policies, with the
// aggregated roles filled as the Aggregator fills them.
func policyAuthorizer(t *testing.T) *Authorizer {
	t.Helper()
	hammers := &schemas.Resource{Group: "tools.example.com", Plural: "hammers", Scope: schemas.Namespaced}
	hammers.Versions = []*schemas.ResourceVersion{{Resource: hammers, Version: "v1", StatusSubresource: true}}
	reg := schemas.NewRegistry([]*schemas.Group{
		{Name: "tools.example.com", Resources: []*schemas.Resource{hammers}},
		{Name: "coordination.k8s.io", Resources: []*schemas.Resource{{Group: "coordination.k8s.io", Plural: "leases"}}},
	})
	a := New(Config{})
	for _, p := range []Policy{DefaultPolicy(), SchemaPolicy(reg)} {
		for _, r := range p.ClusterRoles {
			a.ix.put(r)
		}
		for _, b := range p.ClusterRoleBindings {
			a.ix.put(b)
		}
	}
	for range 3 { // view feeds edit, which feeds admin
		for name, agg := range a.ix.aggregations() {
			r := a.ix.clusterRoles[name].DeepCopy()
			r.Rules = agg.rules
			a.ix.put(r)
		}
	}
	if len(a.ix.aggregations()) != 0 {
		t.Fatal("aggregation does not settle")
	}
	for _, name := range []string{"admin", "edit", "view"} {
		a.ix.put(roleBinding("ns", name, "ClusterRole", name, userSub(name+"-user")))
	}
	return a
}

func TestDefaultRoles(t *testing.T) {
	a := policyAuthorizer(t)
	res := func(u, verb, group, resource, sub string) authorizer.AttributesRecord {
		r := resReq(verb, group, resource, sub, "x")
		r.User = userInfo(u, user.AllAuthenticated)
		return r
	}
	url := func(u, group, path string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{User: userInfo(u, group), Verb: "get", Path: path}
	}
	tests := map[string]struct {
		attrs authorizer.AttributesRecord
		want  bool
	}{
		"unbound user, nothing":           {res("root", "delete", "x", "y", ""), false},
		"view reads schema resources":     {res("view-user", "list", "tools.example.com", "hammers", ""), true},
		"view reads status":               {res("view-user", "get", "tools.example.com", "hammers", "status"), true},
		"view does not write":             {res("view-user", "create", "tools.example.com", "hammers", ""), false},
		"view does not read secrets":      {res("view-user", "get", "", "secrets", ""), false},
		"view reads configmaps":           {res("view-user", "get", "", "configmaps", ""), true},
		"view does not read roles":        {res("view-user", "get", Group, "roles", ""), false},
		"edit writes schema resources":    {res("edit-user", "deletecollection", "tools.example.com", "hammers", ""), true},
		"edit reads (view aggregated)":    {res("edit-user", "watch", "tools.example.com", "hammers", ""), true},
		"edit does not write status":      {res("edit-user", "update", "tools.example.com", "hammers", "status"), false},
		"edit reads secrets":              {res("edit-user", "get", "", "secrets", ""), true},
		"edit does not write rbac":        {res("edit-user", "create", Group, "rolebindings", ""), false},
		"admin writes rolebindings":       {res("admin-user", "create", Group, "rolebindings", ""), true},
		"admin writes schema resources":   {res("admin-user", "delete", "tools.example.com", "hammers", ""), true},
		"admin not clusterroles":          {res("admin-user", "create", Group, "clusterroles", ""), false},
		"nobody elsewhere":                {res("nobody", "get", "tools.example.com", "hammers", ""), false},
		"basic-user self review":          {res("nobody", "create", "authorization.k8s.io", "selfsubjectrulesreviews", ""), true},
		"basic-user whoami":               {res("nobody", "create", "authentication.k8s.io", "selfsubjectreviews", ""), true},
		"discovery":                       {url("nobody", user.AllAuthenticated, "/apis/tools.example.com/v1"), true},
		"discovery openapi":               {url("nobody", user.AllAuthenticated, "/openapi/v3/apis/tools.example.com/v1"), true},
		"no metrics":                      {url("nobody", user.AllAuthenticated, "/metrics"), false},
		"public info, unauthenticated":    {url(user.Anonymous, user.AllUnauthenticated, "/livez"), true},
		"no discovery, unauthenticated":   {url(user.Anonymous, user.AllUnauthenticated, "/apis"), false},
		"cluster-admin by system:masters": {url("root", user.SystemPrivilegedGroup, "/metrics"), true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			d, _, _ := a.Authorize(context.Background(), tc.attrs)
			if got := d == authorizer.DecisionAllow; got != tc.want {
				t.Errorf("allowed = %v, want %v", got, tc.want)
			}
		})
	}
	// cluster-admin is bound to system:masters: its rules are listed.
	resRules, _, _, _ := a.RulesFor(context.Background(), userInfo("root", user.SystemPrivilegedGroup), "")
	if len(resRules) == 0 || resRules[0].GetVerbs()[0] != "*" {
		t.Errorf("system:masters rules = %v, want cluster-admin's", resRules)
	}
}
