package rbac

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
)

// The labels and annotation of kube's bootstrap policy.
const (
	// AggregateToAdmin, AggregateToEdit and AggregateToView, set to
	// "true" on a ClusterRole, add its rules to admin, edit or view.
	AggregateToAdmin = "rbac.authorization.k8s.io/aggregate-to-admin"
	AggregateToEdit  = "rbac.authorization.k8s.io/aggregate-to-edit"
	AggregateToView  = "rbac.authorization.k8s.io/aggregate-to-view"
	// AutoUpdate "true" lets Reconcile bring a default object back to
	// the policy; an operator sets "false" to keep their changes.
	AutoUpdate = "rbac.authorization.kubernetes.io/autoupdate"
	// Bootstrapping marks the objects of the default policy.
	Bootstrapping = "kubernetes.io/bootstrapping"
)

// Policy is a set of ClusterRoles and ClusterRoleBindings that Reconcile
// writes.
type Policy struct {
	ClusterRoles        []*rbacv1.ClusterRole
	ClusterRoleBindings []*rbacv1.ClusterRoleBinding
	// Exact makes Reconcile replace the rules and subjects of the
	// objects it updates with the policy's; otherwise it only adds what
	// is missing, as kube-apiserver does with its bootstrap policy, so
	// that an operator's additions stay.
	Exact bool
}

var (
	readVerbs  = []string{"get", "list", "watch"}
	writeVerbs = []string{"create", "delete", "deletecollection", "patch", "update"}
	allVerbs   = append(append([]string{}, readVerbs...), writeVerbs...)
)

// DefaultPolicy is the part of kube's bootstrap policy that specd serves:
// the user-facing roles cluster-admin, admin, edit and view (the last
// three aggregated), the discovery, basic-user, public-info-viewer and
// monitoring roles, and their bindings (system:monitoring: the group
// system:monitoring may read /metrics and the health paths, as a scraper
// of kube-apiserver does).
func DefaultPolicy() Policy {
	return Policy{
		ClusterRoles: []*rbacv1.ClusterRole{
			defaultRole("cluster-admin", nil,
				rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
				rbacv1.PolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}),
			aggregated("admin", nil, AggregateToAdmin),
			aggregated("edit", map[string]string{AggregateToAdmin: "true"}, AggregateToEdit),
			aggregated("view", map[string]string{AggregateToEdit: "true"}, AggregateToView),
			defaultRole("system:aggregate-to-admin", map[string]string{AggregateToAdmin: "true"}, aggregateToAdminRules()...),
			defaultRole("system:aggregate-to-edit", map[string]string{AggregateToEdit: "true"}, aggregateToEditRules()...),
			defaultRole("system:aggregate-to-view", map[string]string{AggregateToView: "true"}, aggregateToViewRules()...),
			defaultRole("system:discovery", nil, rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{
				"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/"}}),
			defaultRole("system:basic-user", nil,
				rbacv1.PolicyRule{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews"}},
				rbacv1.PolicyRule{Verbs: []string{"create"}, APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"selfsubjectreviews"}}),
			defaultRole("system:public-info-viewer", nil, rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{
				"/healthz", "/livez", "/readyz", "/version", "/version/"}}),
			defaultRole("system:monitoring", nil, rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{
				"/healthz", "/healthz/*", "/livez", "/livez/*", "/metrics", "/metrics/slis", "/readyz", "/readyz/*"}}),
		},
		ClusterRoleBindings: []*rbacv1.ClusterRoleBinding{
			defaultBinding("cluster-admin", groupRef(user.SystemPrivilegedGroup)),
			defaultBinding("system:discovery", groupRef(user.AllAuthenticated)),
			defaultBinding("system:basic-user", groupRef(user.AllAuthenticated)),
			defaultBinding("system:public-info-viewer", groupRef(user.AllAuthenticated), groupRef(user.AllUnauthenticated)),
			defaultBinding("system:monitoring", groupRef(user.MonitoringGroup)),
		},
	}
}

// aggregateToAdminRules: admin may also manage who has rights in its
// namespace, and ask who may do what there.
func aggregateToAdminRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"localsubjectaccessreviews"}},
		{Verbs: allVerbs, APIGroups: []string{rbacv1.GroupName}, Resources: []string{"rolebindings", "roles"}},
	}
}

// aggregateToEditRules: write the core namespaced kinds, secrets
// included, and act as the namespace's service accounts; never RBAC.
func aggregateToEditRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{Verbs: []string{"impersonate"}, APIGroups: []string{""}, Resources: []string{"serviceaccounts"}},
		{Verbs: writeVerbs, APIGroups: []string{""}, Resources: []string{"configmaps", "endpoints", "events",
			"persistentvolumeclaims", "pods", "replicationcontrollers", "replicationcontrollers/scale",
			"secrets", "serviceaccounts", "services"}},
		{Verbs: []string{"create"}, APIGroups: []string{""}, Resources: []string{"serviceaccounts/token"}},
		{Verbs: writeVerbs, APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}},
		{Verbs: writeVerbs, APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}},
		{Verbs: readVerbs, APIGroups: []string{""}, Resources: []string{"secrets"}},
	}
}

// aggregateToViewRules: read the core namespaced kinds but secrets, and
// namespaces; never RBAC. Of specd's status, what shows nothing secret:
// not plugins, whose last error may quote an object a plugin was given.
func aggregateToViewRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{Verbs: readVerbs, APIGroups: []string{""}, Resources: []string{"bindings", "configmaps", "endpoints", "events",
			"limitranges", "namespaces/status", "persistentvolumeclaims", "persistentvolumeclaims/status", "pods",
			"pods/log", "pods/status", "replicationcontrollers", "replicationcontrollers/scale",
			"replicationcontrollers/status", "resourcequotas", "resourcequotas/status", "serviceaccounts",
			"services", "services/status"}},
		{Verbs: readVerbs, APIGroups: []string{""}, Resources: []string{"namespaces"}},
		{Verbs: readVerbs, APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}},
		{Verbs: readVerbs, APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}},
		{Verbs: readVerbs, APIGroups: []string{StatusGroup}, Resources: []string{"conversions", "schemafiles", "schemareloads", "storagemigrations"}},
	}
}

func defaultMeta(name string, labels map[string]string) metav1.ObjectMeta {
	l := map[string]string{Bootstrapping: "rbac-defaults"}
	for k, v := range labels {
		l[k] = v
	}
	return metav1.ObjectMeta{Name: name, Labels: l, Annotations: map[string]string{AutoUpdate: "true"}}
}

func defaultRole(name string, labels map[string]string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{TypeMeta: clusterRoleType, ObjectMeta: defaultMeta(name, labels), Rules: rules}
}

// aggregated is a ClusterRole whose rules are those of the ClusterRoles
// labelled label: "true".
func aggregated(name string, labels map[string]string, label string) *rbacv1.ClusterRole {
	r := defaultRole(name, labels)
	r.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
		{MatchLabels: map[string]string{label: "true"}}}}
	return r
}

func defaultBinding(role string, subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{TypeMeta: clusterRoleBindingType, ObjectMeta: defaultMeta(role, nil), Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role}}
}

func groupRef(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: name}
}

var (
	clusterRoleType        = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"}
	clusterRoleBindingType = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"}
)
