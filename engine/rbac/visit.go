package rbac

import (
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apiserver/pkg/authentication/user"
)

// source is the binding a rule came from, described only when a
// decision's reason needs it.
type source struct {
	crb *rbacv1.ClusterRoleBinding
	rb  *rbacv1.RoleBinding
}

func (s source) binding() any {
	if s.crb != nil {
		return s.crb
	}
	return s.rb
}

// describe names the binding, its role and the subject that matched u,
// as kube's RBAC authorizer does in a reason.
func (s source) describe(u user.Info) string {
	if s.crb != nil {
		sub, _ := appliesTo(u, s.crb.Subjects, "")
		return fmt.Sprintf("ClusterRoleBinding %q of %s %q to %s", s.crb.Name, s.crb.RoleRef.Kind, s.crb.RoleRef.Name, describeSubject(sub, ""))
	}
	sub, _ := appliesTo(u, s.rb.Subjects, s.rb.Namespace)
	return fmt.Sprintf("RoleBinding %q of %s %q to %s", s.rb.Name+"/"+s.rb.Namespace, s.rb.RoleRef.Kind, s.rb.RoleRef.Name, describeSubject(sub, s.rb.Namespace))
}

func describeSubject(s *rbacv1.Subject, bindingNamespace string) string {
	if s == nil {
		return "unknown subject"
	}
	if s.Kind == rbacv1.ServiceAccountKind {
		ns := s.Namespace
		if ns == "" {
			ns = bindingNamespace
		}
		return fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+ns)
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Name)
}

// visit calls fn with the rules of each binding of u: its
// ClusterRoleBindings, then its RoleBindings in namespace, until fn
// answers false. A binding whose role is missing is an error instead.
// A binding that names u twice (as user and through a group) may come
// twice.
func (ix *index) visit(u user.Info, namespace string, fn func(source, []rbacv1.PolicyRule, error) bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	more := userKeys(u, "", func(k subjectKey) bool {
		for _, b := range ix.clusterBySubject[k] {
			rules, err := ix.roleRefRules(b.RoleRef, "")
			if !fn(source{crb: b}, rules, err) {
				return false
			}
		}
		return true
	})
	if !more || namespace == "" {
		return
	}
	userKeys(u, namespace, func(k subjectKey) bool {
		for _, b := range ix.roleBySubject[k] {
			rules, err := ix.roleRefRules(b.RoleRef, namespace)
			if !fn(source{rb: b}, rules, err) {
				return false
			}
		}
		return true
	})
}
