package rbac

import (
	"strings"
	"sync"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apiserver/pkg/authentication/user"
)

// subjectKind is the kind of a binding's subject, as an index key.
type subjectKind uint8

const (
	userSubject subjectKind = iota + 1
	groupSubject
	serviceAccountSubject
)

// subjectKey names one subject a binding applies to; namespace is the
// service account's (for a RoleBinding's, also the binding's own, so one
// map serves every namespace).
type subjectKey struct {
	kind      subjectKind
	namespace string // service account's namespace
	name      string
	binding   string // namespace of a RoleBinding; "" for a ClusterRoleBinding
}

// nsName names a namespaced object.
type nsName struct{ namespace, name string }

// saPrefix starts the user name of every service account.
const saPrefix = "system:serviceaccount:"

// index holds the four kinds in memory, with the bindings indexed by
// subject so that a request looks up only its user's bindings.
type index struct {
	mu                  sync.RWMutex
	clusterRoles        map[string]*rbacv1.ClusterRole
	roles               map[nsName]*rbacv1.Role
	clusterRoleBindings map[string]*rbacv1.ClusterRoleBinding
	roleBindings        map[nsName]*rbacv1.RoleBinding
	// bySubject are the bindings of each subject, in the order they came.
	clusterBySubject map[subjectKey][]*rbacv1.ClusterRoleBinding
	roleBySubject    map[subjectKey][]*rbacv1.RoleBinding
	// changed is told (without blocking) when a ClusterRole changes.
	changed chan struct{}
}

func newIndex() *index {
	return &index{
		clusterRoles:        map[string]*rbacv1.ClusterRole{},
		roles:               map[nsName]*rbacv1.Role{},
		clusterRoleBindings: map[string]*rbacv1.ClusterRoleBinding{},
		roleBindings:        map[nsName]*rbacv1.RoleBinding{},
		clusterBySubject:    map[subjectKey][]*rbacv1.ClusterRoleBinding{},
		roleBySubject:       map[subjectKey][]*rbacv1.RoleBinding{},
		changed:             make(chan struct{}, 1),
	}
}

// keyOf is the index key of a binding's subject, false for a subject
// that can apply to no user (a service account without a namespace in a
// ClusterRoleBinding, an unknown kind).
func keyOf(s rbacv1.Subject, bindingNamespace string) (subjectKey, bool) {
	k := subjectKey{name: s.Name, binding: bindingNamespace}
	switch s.Kind {
	case rbacv1.UserKind:
		k.kind = userSubject
	case rbacv1.GroupKind:
		k.kind = groupSubject
	case rbacv1.ServiceAccountKind:
		k.kind, k.namespace = serviceAccountSubject, s.Namespace
		if k.namespace == "" {
			k.namespace = bindingNamespace
		}
		return k, k.namespace != ""
	default:
		return k, false
	}
	return k, true
}

// userKeys calls fn with each key the user u is known by in bindings of
// namespace ns ("" for ClusterRoleBindings) until it answers false.
func userKeys(u user.Info, ns string, fn func(subjectKey) bool) bool {
	name := u.GetName()
	if !fn(subjectKey{kind: userSubject, name: name, binding: ns}) {
		return false
	}
	for _, g := range u.GetGroups() {
		if !fn(subjectKey{kind: groupSubject, name: g, binding: ns}) {
			return false
		}
	}
	if rest, ok := strings.CutPrefix(name, saPrefix); ok {
		if sans, saname, ok := strings.Cut(rest, ":"); ok {
			return fn(subjectKey{kind: serviceAccountSubject, namespace: sans, name: saname, binding: ns})
		}
	}
	return true
}

// appliesTo returns the first of subjects that names u, as kube reports
// it in a decision's reason.
func appliesTo(u user.Info, subjects []rbacv1.Subject, bindingNamespace string) (*rbacv1.Subject, bool) {
	for i := range subjects {
		k, ok := keyOf(subjects[i], bindingNamespace)
		if !ok {
			continue
		}
		found := false
		userKeys(u, bindingNamespace, func(uk subjectKey) bool {
			found = uk == k
			return !found
		})
		if found {
			return &subjects[i], true
		}
	}
	return nil, false
}
