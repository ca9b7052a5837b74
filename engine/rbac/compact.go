package rbac

import (
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/specd-io/specd/plugins/hook"
)

// compactRules merges rules that differ only in their verbs, as kube
// does before naming the permissions an escalation lacks (Covers answers
// one rule per verb).
func compactRules(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	type key struct{ group, resource, name string }
	var out []rbacv1.PolicyRule
	at := map[key]int{}
	for _, r := range rules {
		if len(r.APIGroups) != 1 || len(r.Resources) != 1 || len(r.ResourceNames) > 1 || len(r.NonResourceURLs) > 0 {
			out = append(out, r)
			continue
		}
		k := key{r.APIGroups[0], r.Resources[0], ""}
		if len(r.ResourceNames) == 1 {
			k.name = r.ResourceNames[0]
		}
		if i, ok := at[k]; ok {
			out[i].Verbs = append(out[i].Verbs, r.Verbs...)
			continue
		}
		at[k] = len(out)
		r.Verbs = append([]string(nil), r.Verbs...)
		out = append(out, r)
	}
	return out
}

// compactString shows a rule as kube's escalation message does:
// {APIGroups:["g"], Resources:["r"], Verbs:["get"]}.
func compactString(r rbacv1.PolicyRule) string {
	var parts []string
	add := func(name string, v []string) {
		if len(v) > 0 {
			parts = append(parts, fmt.Sprintf("%s:%q", name, v))
		}
	}
	add("APIGroups", r.APIGroups)
	add("Resources", r.Resources)
	add("NonResourceURLs", r.NonResourceURLs)
	add("ResourceNames", r.ResourceNames)
	add("Verbs", r.Verbs)
	return "{" + strings.Join(parts, ", ") + "}"
}

func schemaGroupResource(req hook.AdmissionRequest) schema.GroupResource {
	return schema.GroupResource{Group: req.Group, Resource: req.Resource}
}

func schemaGroupKind(req hook.AdmissionRequest) schema.GroupKind {
	return schema.GroupKind{Group: req.Group, Kind: req.Kind}
}
