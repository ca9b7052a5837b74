package rbac

import (
	"context"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/specd-io/specd/schemas"
)

// InternalUser is who specd's own writes of RBAC objects (Reconcile, the
// Aggregator) are made as: a member of system:masters, as kube-apiserver's
// loopback client is.
var InternalUser user.Info = &user.DefaultInfo{Name: "system:specd", Groups: []string{user.SystemPrivilegedGroup}}

// WithInternalUser returns ctx carrying InternalUser, for an in-process
// writer that must pass the escalation checks.
func WithInternalUser(ctx context.Context) context.Context {
	return request.WithUser(ctx, InternalUser)
}

// internal reports whether ctx carries InternalUser itself, as only
// WithInternalUser puts it.
func internal(ctx context.Context) bool {
	u, ok := request.UserFrom(ctx)
	return ok && u == InternalUser
}

// clusterRoleResource is the served ClusterRole resource of reg, or nil.
func clusterRoleResource(reg *schemas.Registry) *schemas.ResourceVersion {
	return reg.Lookup(Group, Version, plurals[clusterRoles])
}
