package rbac

import (
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/specd-io/specd/schemas"
)

// The ClusterRoles SchemaPolicy writes.
const (
	SchemaViewRole = "specd:aggregate-to-view"
	SchemaEditRole = "specd:aggregate-to-edit"
)

// StatusGroup is specd's own status.specd.io (engine/statusapi).
const StatusGroup = "status.specd.io"

// SchemaPolicy gives view and edit (and so admin, which aggregates edit)
// the resources of every group reg serves from the user's schemas: two
// ClusterRoles labelled AggregateToView (read, with the status and scale
// subresources) and AggregateToEdit (write, with scale). The API groups
// of Kubernetes itself ("" and *.k8s.io, *.kubernetes.io) and specd's
// status.specd.io are left to DefaultPolicy. Its Exact is set: a group removed from the schemas
// leaves the roles when they are reconciled.
func SchemaPolicy(reg *schemas.Registry) Policy {
	var view, edit []rbacv1.PolicyRule
	for _, g := range reg.Groups() {
		if builtinGroup(g.Name) {
			continue
		}
		read, write := groupResources(g)
		if len(read) > 0 {
			view = append(view, rbacv1.PolicyRule{Verbs: readVerbs, APIGroups: []string{g.Name}, Resources: read})
		}
		if len(write) > 0 {
			edit = append(edit, rbacv1.PolicyRule{Verbs: writeVerbs, APIGroups: []string{g.Name}, Resources: write})
		}
	}
	return Policy{Exact: true, ClusterRoles: []*rbacv1.ClusterRole{
		schemaRole(SchemaViewRole, AggregateToView, view),
		schemaRole(SchemaEditRole, AggregateToEdit, edit),
	}}
}

// groupResources returns what view reads and edit writes of g's served
// resources.
func groupResources(g *schemas.Group) (read, write []string) {
	for _, r := range g.Resources {
		status, scale, served := false, false, false
		for _, rv := range r.Versions {
			if rv.Served() {
				served = true
				status = status || rv.StatusSubresource
				scale = scale || rv.Scale != nil
			}
		}
		if !served {
			continue
		}
		read, write = append(read, r.Plural), append(write, r.Plural)
		if status {
			read = append(read, r.Plural+"/status")
		}
		if scale {
			read, write = append(read, r.Plural+"/scale"), append(write, r.Plural+"/scale")
		}
	}
	return read, write
}

// builtinGroup reports whether a group is Kubernetes' own, or specd's
// own status group, whose view rules DefaultPolicy gives.
func builtinGroup(name string) bool {
	return name == "" || strings.HasSuffix(name, ".k8s.io") || strings.HasSuffix(name, ".kubernetes.io") ||
		name == "k8s.io" || name == "kubernetes.io" || name == StatusGroup
}

func schemaRole(name, label string, rules []rbacv1.PolicyRule) *rbacv1.ClusterRole {
	r := defaultRole(name, map[string]string{label: "true"}, rules...)
	r.Labels[Bootstrapping] = "specd-schemas"
	return r
}
