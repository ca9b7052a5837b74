package rbac

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// BenchmarkAuthorize decides one request among 1,000 RoleBindings (100
// namespaces, 10 users each) and 200 ClusterRoles, with the default
// policy's bindings to system:authenticated besides.
func BenchmarkAuthorize(b *testing.B) {
	var objs []any
	for i := range 200 {
		objs = append(objs, clusterRole(fmt.Sprintf("role-%d", i),
			rule(list("get", "list", "watch"), list(fmt.Sprintf("g%d.example.com", i)), list("widgets", "gadgets")),
			rule(list("create", "update", "patch", "delete"), list(fmt.Sprintf("g%d.example.com", i)), list("widgets"))))
	}
	for i := range 1000 {
		ns := fmt.Sprintf("ns-%d", i/10)
		objs = append(objs, roleBinding(ns, fmt.Sprintf("b-%d", i), "ClusterRole", fmt.Sprintf("role-%d", i%200),
			userSub(fmt.Sprintf("user-%d", i)), groupSub(fmt.Sprintf("team-%d", i%50))))
	}
	p := DefaultPolicy()
	for _, r := range p.ClusterRoles {
		objs = append(objs, r)
	}
	for _, crb := range p.ClusterRoleBindings {
		objs = append(objs, crb)
	}
	a := staticAuthorizer(objs...)
	// user-537 is bound in ns-53 to role-137 (its last rule allows update).
	attrs := resReq("update", "g137.example.com", "widgets", "", "w")
	attrs.Namespace = "ns-53"
	attrs.User = userInfo("user-537", "team-37", "system:authenticated")
	ctx := context.Background()
	if d, reason, _ := a.Authorize(ctx, attrs); d != authorizer.DecisionAllow {
		b.Fatalf("not allowed: %q", reason)
	}
	b.ReportAllocs()
	for b.Loop() {
		a.Authorize(ctx, attrs)
	}
}
