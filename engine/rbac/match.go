package rbac

import (
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// ruleAllows reports whether rule grants the request a, as kube's RBAC
// authorizer matches: verb, then group, resource (with subresource) and
// name for a resource request, the path for any other.
func ruleAllows(a authorizer.Attributes, rule *rbacv1.PolicyRule) bool {
	if !has(rule.Verbs, rbacv1.VerbAll, a.GetVerb()) {
		return false
	}
	if !a.IsResourceRequest() {
		return nonResourceURLMatches(rule.NonResourceURLs, a.GetPath())
	}
	return has(rule.APIGroups, rbacv1.APIGroupAll, a.GetAPIGroup()) &&
		resourceMatches(rule.Resources, a.GetResource(), a.GetSubresource()) &&
		resourceNameMatches(rule.ResourceNames, a.GetName())
}

// has reports whether set holds want or the wildcard all.
func has(set []string, all, want string) bool {
	for _, s := range set {
		if s == want || s == all {
			return true
		}
	}
	return false
}

// resourceMatches reports whether one of a rule's resources names the
// requested resource: "*", "resource", "resource/subresource" for a
// subresource (never "resource" alone), or "*/subresource".
func resourceMatches(rules []string, resource, subresource string) bool {
	for _, r := range rules {
		switch {
		case r == rbacv1.ResourceAll:
			return true
		case subresource == "":
			if r == resource {
				return true
			}
		case isSubresource(r, resource, subresource) || isSubresource(r, "*", subresource):
			return true
		}
	}
	return false
}

// isSubresource reports whether r is resource/subresource, without
// building that string.
func isSubresource(r, resource, subresource string) bool {
	return len(r) == len(resource)+1+len(subresource) &&
		strings.HasPrefix(r, resource) && r[len(resource)] == '/' && strings.HasSuffix(r, subresource)
}

// resourceNameMatches: a rule without names allows every name; one with
// names only those, and so never a request that names no object (a list,
// watch, create or deletecollection).
func resourceNameMatches(names []string, name string) bool {
	if len(names) == 0 {
		return true
	}
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// nonResourceURLMatches reports whether one of a rule's URLs is "*", the
// path, or a prefix of it ending in "*" ("/openapi/*").
func nonResourceURLMatches(urls []string, path string) bool {
	for _, u := range urls {
		if u == rbacv1.NonResourceAll || u == path {
			return true
		}
		if strings.HasSuffix(u, "*") && strings.HasPrefix(path, strings.TrimRight(u, "*")) {
			return true
		}
	}
	return false
}
