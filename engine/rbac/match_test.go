package rbac

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

func resReq(verb, group, resource, sub, name string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{Verb: verb, APIGroup: group, Resource: resource, Subresource: sub, Name: name, Namespace: "ns", ResourceRequest: true}
}

func pathReq(verb, path string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{Verb: verb, Path: path}
}

func TestRuleAllows(t *testing.T) {
	widgets := rbacv1.PolicyRule{APIGroups: []string{"shop.example.com"}, Resources: []string{"widgets"}, Verbs: []string{"get", "list", "watch"}}
	tests := map[string]struct {
		rule rbacv1.PolicyRule
		req  authorizer.AttributesRecord
		want bool
	}{
		"verb held":                             {widgets, resReq("list", "shop.example.com", "widgets", "", ""), true},
		"verb not held":                         {widgets, resReq("delete", "shop.example.com", "widgets", "", "a"), false},
		"deletecollection is own":               {rbacv1.PolicyRule{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"delete"}}, resReq("deletecollection", "g", "widgets", "", ""), false},
		"patch is own":                          {rbacv1.PolicyRule{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"update"}}, resReq("patch", "g", "widgets", "", "a"), false},
		"verb star":                             {rbacv1.PolicyRule{APIGroups: []string{"g"}, Resources: []string{"widgets"}, Verbs: []string{"*"}}, resReq("escalate", "g", "widgets", "", ""), true},
		"other group":                           {widgets, resReq("get", "other.example.com", "widgets", "", "a"), false},
		"core group":                            {rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}}, resReq("get", "", "configmaps", "", "a"), true},
		"group star":                            {rbacv1.PolicyRule{APIGroups: []string{"*"}, Resources: []string{"widgets"}, Verbs: []string{"get"}}, resReq("get", "any.io", "widgets", "", "a"), true},
		"resource does not cover subresource":   {widgets, resReq("get", "shop.example.com", "widgets", "status", "a"), false},
		"subresource named":                     {rbacv1.PolicyRule{APIGroups: []string{"g"}, Resources: []string{"widgets/status"}, Verbs: []string{"update"}}, resReq("update", "g", "widgets", "status", "a"), true},
		"subresource not main":                  {rbacv1.PolicyRule{APIGroups: []string{"g"}, Resources: []string{"widgets/status"}, Verbs: []string{"update"}}, resReq("update", "g", "widgets", "", "a"), false},
		"other subresource":                     {rbacv1.PolicyRule{APIGroups: []string{"g"}, Resources: []string{"widgets/status"}, Verbs: []string{"update"}}, resReq("update", "g", "widgets", "scale", "a"), false},
		"star subresource":                      {rbacv1.PolicyRule{APIGroups: []string{"g"}, Resources: []string{"*/scale"}, Verbs: []string{"get"}}, resReq("get", "g", "gadgets", "scale", "a"), true},
		"star subresource not main":             {rbacv1.PolicyRule{APIGroups: []string{"g"}, Resources: []string{"*/scale"}, Verbs: []string{"get"}}, resReq("get", "g", "scale", "", "a"), false},
		"resource slash star is not a wildcard": {rbacv1.PolicyRule{APIGroups: []string{"g"}, Resources: []string{"widgets/*"}, Verbs: []string{"get"}}, resReq("get", "g", "widgets", "status", "a"), false},
		"resource star covers subresources":     {rbacv1.PolicyRule{APIGroups: []string{"g"}, Resources: []string{"*"}, Verbs: []string{"get"}}, resReq("get", "g", "widgets", "status", "a"), true},
		"name listed":                           {rbacv1.PolicyRule{APIGroups: []string{"g"}, Resources: []string{"widgets"}, ResourceNames: []string{"a"}, Verbs: []string{"get", "list", "create"}}, resReq("get", "g", "widgets", "", "a"), true},
		"name not listed":                       {rbacv1.PolicyRule{APIGroups: []string{"g"}, Resources: []string{"widgets"}, ResourceNames: []string{"a"}, Verbs: []string{"get"}}, resReq("get", "g", "widgets", "", "b"), false},
		"names never allow a list":              {rbacv1.PolicyRule{APIGroups: []string{"g"}, Resources: []string{"widgets"}, ResourceNames: []string{"a"}, Verbs: []string{"list"}}, resReq("list", "g", "widgets", "", ""), false},
		"names never allow a create":            {rbacv1.PolicyRule{APIGroups: []string{"g"}, Resources: []string{"widgets"}, ResourceNames: []string{"a"}, Verbs: []string{"create"}}, resReq("create", "g", "widgets", "", ""), false},
		"resource rule is not a URL":            {widgets, pathReq("get", "/apis"), false},
		"URL exact":                             {rbacv1.PolicyRule{NonResourceURLs: []string{"/healthz"}, Verbs: []string{"get"}}, pathReq("get", "/healthz"), true},
		"URL other":                             {rbacv1.PolicyRule{NonResourceURLs: []string{"/healthz"}, Verbs: []string{"get"}}, pathReq("get", "/healthz/etcd"), false},
		"URL prefix star":                       {rbacv1.PolicyRule{NonResourceURLs: []string{"/openapi/*"}, Verbs: []string{"get"}}, pathReq("get", "/openapi/v3/apis/g/v1"), true},
		"URL prefix star, other":                {rbacv1.PolicyRule{NonResourceURLs: []string{"/openapi/*"}, Verbs: []string{"get"}}, pathReq("get", "/openapiv2"), false},
		"URL star":                              {rbacv1.PolicyRule{NonResourceURLs: []string{"*"}, Verbs: []string{"*"}}, pathReq("post", "/anything"), true},
		"URL verb":                              {rbacv1.PolicyRule{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}, pathReq("post", "/metrics"), false},
		"URL rule is not a resource":            {rbacv1.PolicyRule{NonResourceURLs: []string{"*"}, Verbs: []string{"*"}}, resReq("get", "", "pods", "", "a"), false},
		"impersonate":                           {rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"users"}, Verbs: []string{"impersonate"}}, resReq("impersonate", "", "users", "", "alice"), true},
		"bind":                                  {rbacv1.PolicyRule{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"clusterroles"}, ResourceNames: []string{"view"}, Verbs: []string{"bind"}}, resReq("bind", "rbac.authorization.k8s.io", "clusterroles", "", "view"), true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := ruleAllows(tc.req, &tc.rule); got != tc.want {
				t.Errorf("ruleAllows = %v, want %v", got, tc.want)
			}
		})
	}
}
