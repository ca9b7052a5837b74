package rbac

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
)

func clusterRole(name string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
}

func role(ns, name string, rules ...rbacv1.PolicyRule) *rbacv1.Role {
	return &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Rules: rules}
}

func roleBinding(ns, name, roleKind, roleName string, subjects ...rbacv1.Subject) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: Group, Kind: roleKind, Name: roleName}}
}

func clusterRoleBinding(name, roleName string, subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: Group, Kind: "ClusterRole", Name: roleName}}
}

func userSub(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: Group, Name: name}
}

func groupSub(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: Group, Name: name}
}

func saSub(ns, name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}
}

func rule(verbs, groups, resources []string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources}
}

func list(s ...string) []string { return s }

func userInfo(name string, groups ...string) user.Info {
	return &user.DefaultInfo{Name: name, Groups: groups}
}

// staticAuthorizer returns an Authorizer whose indexes hold objs.
func staticAuthorizer(objs ...any) *Authorizer {
	a := New(Config{})
	for _, o := range objs {
		a.ix.put(o)
	}
	return a
}

func rbacRuleURLs(urls ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: list("get"), NonResourceURLs: urls}
}
