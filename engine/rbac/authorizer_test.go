package rbac

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

func TestAuthorize(t *testing.T) {
	widgetsRead := rule(list("get", "list", "watch"), list("shop.example.com"), list("widgets"))
	a := staticAuthorizer(
		clusterRole("widget-reader", widgetsRead),
		role("team", "widget-writer", rule(list("create"), list("shop.example.com"), list("widgets"))),
		roleBinding("team", "alice-reads", "ClusterRole", "widget-reader", userSub("alice")),
		roleBinding("team", "writers", "Role", "widget-writer", groupSub("writers")),
		roleBinding("team", "robot", "ClusterRole", "widget-reader", saSub("", "robot")),
		roleBinding("team", "dangling", "Role", "gone", userSub("dave")),
		clusterRoleBinding("bob-reads", "widget-reader", userSub("carol"), groupSub("readers")),
	)
	get := func(u user.Info, ns, verb string) authorizer.AttributesRecord {
		r := resReq(verb, "shop.example.com", "widgets", "", "")
		r.User, r.Namespace = u, ns
		return r
	}
	tests := map[string]struct {
		attrs      authorizer.AttributesRecord
		want       authorizer.Decision
		wantReason string
	}{
		"role binding to a user": {get(userInfo("alice"), "team", "list"), authorizer.DecisionAllow,
			`RBAC: allowed by RoleBinding "alice-reads/team" of ClusterRole "widget-reader" to User "alice"`},
		"not in another namespace": {get(userInfo("alice"), "other", "list"), authorizer.DecisionNoOpinion, ""},
		"not cluster-wide":         {get(userInfo("alice"), "", "list"), authorizer.DecisionNoOpinion, ""},
		"verb not held":            {get(userInfo("alice"), "team", "delete"), authorizer.DecisionNoOpinion, ""},
		"group of a role binding": {get(userInfo("eve", "writers"), "team", "create"), authorizer.DecisionAllow,
			`RBAC: allowed by RoleBinding "writers/team" of Role "widget-writer" to Group "writers"`},
		"service account of the binding's namespace": {get(userInfo("system:serviceaccount:team:robot"), "team", "get"), authorizer.DecisionAllow,
			`RBAC: allowed by RoleBinding "robot/team" of ClusterRole "widget-reader" to ServiceAccount "robot/team"`},
		"service account of another namespace": {get(userInfo("system:serviceaccount:other:robot"), "team", "get"), authorizer.DecisionNoOpinion, ""},
		"cluster role binding, everywhere": {get(userInfo("frank", "readers"), "any", "watch"), authorizer.DecisionAllow,
			`RBAC: allowed by ClusterRoleBinding "bob-reads" of ClusterRole "widget-reader" to Group "readers"`},
		"cluster role binding, cluster-wide": {get(userInfo("carol"), "", "list"), authorizer.DecisionAllow,
			`RBAC: allowed by ClusterRoleBinding "bob-reads" of ClusterRole "widget-reader" to User "carol"`},
		"missing role is the reason": {get(userInfo("dave"), "team", "get"), authorizer.DecisionNoOpinion,
			`RBAC: role.rbac.authorization.k8s.io "gone" not found`},
		"system:masters": {get(userInfo("root", user.SystemPrivilegedGroup), "team", "delete"), authorizer.DecisionAllow, ""},
		"no user":        {get(nil, "team", "get"), authorizer.DecisionNoOpinion, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			d, reason, err := a.Authorize(context.Background(), tc.attrs)
			if err != nil || d != tc.want || reason != tc.wantReason {
				t.Errorf("Authorize = %v, %q, %v; want %v, %q", d, reason, err, tc.want, tc.wantReason)
			}
		})
	}
}

// TestIndexUpdates: a binding replaced, removed or relisted takes its
// subjects' rights with it.
func TestIndexUpdates(t *testing.T) {
	a := staticAuthorizer(clusterRole("reader", rule(list("get"), list("*"), list("*"))),
		roleBinding("ns", "b", "ClusterRole", "reader", userSub("alice")))
	allowed := func(name string) bool {
		r := resReq("get", "g", "widgets", "", "x")
		r.User = userInfo(name)
		d, _, _ := a.Authorize(context.Background(), r)
		return d == authorizer.DecisionAllow
	}
	if !allowed("alice") {
		t.Fatal("alice not allowed")
	}
	a.ix.put(roleBinding("ns", "b", "ClusterRole", "reader", userSub("bob")))
	if allowed("alice") || !allowed("bob") {
		t.Fatal("replaced binding: alice still allowed or bob not")
	}
	a.ix.remove(roleBindings, "ns", "b")
	if allowed("bob") {
		t.Fatal("removed binding still allows bob")
	}
	a.ix.replace(roleBindings, []any{roleBinding("ns", "c", "ClusterRole", "reader", userSub("carol"))})
	a.ix.replace(clusterRoles, nil)
	if allowed("carol") {
		t.Fatal("carol allowed by a binding to a role that is gone")
	}
	if len(a.ix.roleBySubject) != 1 {
		t.Errorf("index keeps %d subjects, want 1", len(a.ix.roleBySubject))
	}
}

func TestRulesFor(t *testing.T) {
	a := staticAuthorizer(
		clusterRole("reader", rule(list("get"), list(""), list("configmaps"))),
		clusterRole("health", rbacRuleURLs("/healthz")),
		clusterRoleBinding("health", "health", groupSub("system:authenticated")),
		roleBinding("ns", "both", "ClusterRole", "reader", userSub("alice"), groupSub("devs")),
		roleBinding("ns", "missing", "ClusterRole", "nope", userSub("alice")),
	)
	res, non, incomplete, err := a.RulesFor(context.Background(), userInfo("alice", "devs", "system:authenticated"), "ns")
	if err == nil || !strings.Contains(err.Error(), `"nope" not found`) || incomplete {
		t.Errorf("RulesFor error = %v, incomplete %v", err, incomplete)
	}
	if len(res) != 1 || res[0].GetResources()[0] != "configmaps" {
		t.Errorf("resource rules = %v, want configmaps once", res)
	}
	if len(non) != 1 || non[0].GetNonResourceURLs()[0] != "/healthz" {
		t.Errorf("non-resource rules = %v", non)
	}
}
