// Package identity owns who a plugin is when it calls back into specd:
// the user "system:plugin:NAME" its Host callbacks carry, and the RBAC
// ClusterRoles and ClusterRoleBindings (PluginPolicy) that let each plugin
// the schemas bind act on the resources of those schemas' groups, so that
// the example plugins work under RBAC out of the box.
//
// It is pure: it reads a schemas.Registry and returns values; the caller
// writes the policy and reconciles it on schema reload.
package identity
