package rbac

import (
	"maps"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// TestRuleKeyIsSemanticEquality: two rules have the same ruleKey, and
// rulesEqual holds, exactly when equality.Semantic.DeepEqual finds them
// equal, which the aggregation and the reconciler used before.
func TestRuleKeyIsSemanticEquality(t *testing.T) {
	rules := []rbacv1.PolicyRule{
		{},
		{Verbs: []string{}},
		{Verbs: list("get")},
		{Verbs: list("get", "list")},
		{Verbs: list("list", "get")},
		{Verbs: list("get"), APIGroups: list("")},
		{Verbs: list("get"), APIGroups: list("a", "bc")},
		{Verbs: list("get"), APIGroups: list("ab", "c")},
		{Verbs: list("get"), APIGroups: list("a"), Resources: list("bc")},
		{Verbs: list("get"), APIGroups: list("a"), Resources: []string{}, ResourceNames: list("bc")},
		{Verbs: list("get"), NonResourceURLs: list("/a")},
		{Verbs: list("get"), ResourceNames: list("/a")},
		{Verbs: list("get;1:x")},
		{Verbs: list("get", "x")},
	}
	for i, a := range rules {
		for j, b := range rules {
			want := equality.Semantic.DeepEqual(a, b)
			if got := ruleKey(a) == ruleKey(b); got != want {
				t.Errorf("rules %d and %d: same key %v, DeepEqual %v: %q, %q", i, j, got, want, ruleKey(a), ruleKey(b))
			}
			if got := rulesEqual([]rbacv1.PolicyRule{a}, []rbacv1.PolicyRule{b}); got != want {
				t.Errorf("rules %d and %d: rulesEqual %v, DeepEqual %v", i, j, got, want)
			}
		}
	}
	if got := addMissingRules([]rbacv1.PolicyRule{{}}, rules); len(got) != len(rules)-1 {
		t.Errorf("addMissingRules kept %d rules, want %d (the empty and the nil list of verbs are one rule)", len(got), len(rules)-1)
	}
}

// TestAggregationSettlesInOnePass: with the schema roles of a new group
// written, one pass gives admin, edit and view their final rules (admin
// gathers edit, which gathers view), so that the Aggregator writes each
// once; after it there is nothing left to aggregate.
func TestAggregationSettlesInOnePass(t *testing.T) {
	ix := schemaGroups(5)
	for name, agg := range ix.aggregations() {
		cr := ix.clusterRoles[name].DeepCopy()
		cr.Rules = agg.rules
		ix.put(cr)
	}
	if left := ix.aggregations(); len(left) != 0 {
		t.Fatalf("after one pass, still to aggregate: %v", slices.Collect(maps.Keys(left)))
	}
	for _, name := range []string{"admin", "edit", "view"} {
		if !slices.ContainsFunc(ix.clusterRoles[name].Rules, func(r rbacv1.PolicyRule) bool {
			return slices.Equal(r.APIGroups, []string{"g4.example.com"}) && slices.Equal(r.Resources, []string{"things", "things/status"})
		}) {
			t.Errorf("%s cannot read the last group's things", name)
		}
	}
}
