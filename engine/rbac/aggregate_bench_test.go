package rbac

import (
	"fmt"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

// schemaGroups is the default policy with the schema roles of n groups
// of one resource each, and the aggregated roles (admin, edit, view)
// already holding what they gather but the last group's rules: the
// index as the Aggregator finds it after the nth CRD's schema roles are
// written.
func schemaGroups(n int) *index {
	var view, edit []rbacv1.PolicyRule
	for i := range n {
		g := fmt.Sprintf("g%d.example.com", i)
		view = append(view, rbacv1.PolicyRule{Verbs: readVerbs, APIGroups: []string{g}, Resources: []string{"things", "things/status"}})
		edit = append(edit, rbacv1.PolicyRule{Verbs: writeVerbs, APIGroups: []string{g}, Resources: []string{"things"}})
	}
	ix := newIndex()
	for _, r := range DefaultPolicy().ClusterRoles {
		ix.put(r)
	}
	ix.put(schemaRole(SchemaViewRole, AggregateToView, view[:n-1]))
	ix.put(schemaRole(SchemaEditRole, AggregateToEdit, edit[:n-1]))
	for name, agg := range ix.aggregations() {
		cr := ix.clusterRoles[name].DeepCopy()
		cr.Rules = agg.rules
		ix.put(cr)
	}
	ix.put(schemaRole(SchemaViewRole, AggregateToView, view))
	ix.put(schemaRole(SchemaEditRole, AggregateToEdit, edit))
	return ix
}

// BenchmarkAggregations is one pass of the Aggregator over the index
// after the nth CRD (in a group of its own) is served: the rules that
// admin, edit and view should now have. Its cost per pass should grow
// with n (the roles list every group), not with n².
//
//	go test ./engine/rbac/ -run '^$' -bench BenchmarkAggregations -benchmem
func BenchmarkAggregations(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("crds=%d", n), func(b *testing.B) {
			ix := schemaGroups(n)
			if got := len(ix.aggregations()); got != 3 {
				b.Fatalf("%d roles to aggregate, want admin, edit and view", got)
			}
			for b.Loop() {
				ix.aggregations()
			}
		})
	}
}
