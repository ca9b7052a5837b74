package rbac

import (
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
)

// put adds or replaces one object of any of the four kinds.
func (ix *index) put(obj any) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.putLocked(obj)
}

func (ix *index) putLocked(obj any) {
	switch o := obj.(type) {
	case *rbacv1.ClusterRole:
		ix.clusterRoles[o.Name] = o
		ix.notify()
	case *rbacv1.Role:
		ix.roles[nsName{o.Namespace, o.Name}] = o
	case *rbacv1.ClusterRoleBinding:
		ix.removeClusterRoleBinding(o.Name)
		ix.clusterRoleBindings[o.Name] = o
		for _, s := range o.Subjects {
			if k, ok := keyOf(s, ""); ok && !slices.Contains(ix.clusterBySubject[k], o) {
				ix.clusterBySubject[k] = append(ix.clusterBySubject[k], o)
			}
		}
	case *rbacv1.RoleBinding:
		ix.removeRoleBinding(nsName{o.Namespace, o.Name})
		ix.roleBindings[nsName{o.Namespace, o.Name}] = o
		for _, s := range o.Subjects {
			if k, ok := keyOf(s, o.Namespace); ok && !slices.Contains(ix.roleBySubject[k], o) {
				ix.roleBySubject[k] = append(ix.roleBySubject[k], o)
			}
		}
	}
}

// remove deletes the object of kind k named ns/name.
func (ix *index) remove(k kind, ns, name string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.removeLocked(k, ns, name)
}

func (ix *index) removeLocked(k kind, ns, name string) {
	switch k {
	case clusterRoles:
		delete(ix.clusterRoles, name)
		ix.notify()
	case roles:
		delete(ix.roles, nsName{ns, name})
	case clusterRoleBindings:
		ix.removeClusterRoleBinding(name)
	case roleBindings:
		ix.removeRoleBinding(nsName{ns, name})
	}
}

// replace makes objs the whole content of kind k, at once.
func (ix *index) replace(k kind, objs []any) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	switch k {
	case clusterRoles:
		clear(ix.clusterRoles)
		ix.notify()
	case roles:
		clear(ix.roles)
	case clusterRoleBindings:
		clear(ix.clusterRoleBindings)
		clear(ix.clusterBySubject)
	case roleBindings:
		clear(ix.roleBindings)
		clear(ix.roleBySubject)
	}
	for _, o := range objs {
		ix.putLocked(o)
	}
}

func (ix *index) removeClusterRoleBinding(name string) {
	old := ix.clusterRoleBindings[name]
	if old == nil {
		return
	}
	delete(ix.clusterRoleBindings, name)
	for _, s := range old.Subjects {
		if k, ok := keyOf(s, ""); ok {
			ix.clusterBySubject[k] = without(ix.clusterBySubject[k], old)
			if len(ix.clusterBySubject[k]) == 0 {
				delete(ix.clusterBySubject, k)
			}
		}
	}
}

func (ix *index) removeRoleBinding(key nsName) {
	old := ix.roleBindings[key]
	if old == nil {
		return
	}
	delete(ix.roleBindings, key)
	for _, s := range old.Subjects {
		if k, ok := keyOf(s, old.Namespace); ok {
			ix.roleBySubject[k] = without(ix.roleBySubject[k], old)
			if len(ix.roleBySubject[k]) == 0 {
				delete(ix.roleBySubject, k)
			}
		}
	}
}

// without returns s less e, in a new array: readers never hold the lock
// past a lookup, but a slice they were handed stays as it was.
func without[T comparable](s []T, e T) []T {
	out := make([]T, 0, len(s))
	for _, x := range s {
		if x != e {
			out = append(out, x)
		}
	}
	return out
}

// notify tells a waiting Aggregator that ClusterRoles changed.
func (ix *index) notify() {
	select {
	case ix.changed <- struct{}{}:
	default:
	}
}
