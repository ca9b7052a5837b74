package identity

import (
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/schemas"
)

const (
	// RolePrefix precedes a plugin's name in the name of its ClusterRole
	// and ClusterRoleBinding.
	RolePrefix = "system:specd:plugin:"
	// AutoupdateAnnotation marks a role that specd rewrites at start and
	// on schema reload, as kube-apiserver marks its bootstrap roles; set
	// it to "false" to keep an edited role as it is.
	AutoupdateAnnotation = "rbac.authorization.kubernetes.io/autoupdate"
	// BootstrappingLabel is kube's label of the roles a server makes
	// itself.
	BootstrappingLabel = "kubernetes.io/bootstrapping"
)

// pluginVerbs are every verb a resource of a schema serves.
var pluginVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}

// eventsRule lets a plugin record Events in any namespace, in both groups
// that serve them: kube's bootstrap policy gives every controller the same
// rule.
func eventsRule() rbacv1.PolicyRule {
	return rbacv1.PolicyRule{
		APIGroups: []string{"", "events.k8s.io"},
		Resources: []string{"events"},
		Verbs:     []string{"create", "update", "patch"},
	}
}

// RoleName is the name of plugin's ClusterRole and ClusterRoleBinding.
func RoleName(plugin string) string { return RolePrefix + plugin }

// PluginPolicy grants each plugin that reg's schemas bind (to default,
// validate or reconcile) every verb on every resource, with its status
// and scale subresources, of each group whose schemas bind it: what a
// reconciler needs to manage its group's objects, such as the Ships a
// fleet controller makes for a Fleet. Each may also record Events. One ClusterRole and one
// ClusterRoleBinding to the plugin's user per plugin, sorted by name.
func PluginPolicy(reg *schemas.Registry) ([]rbacv1.ClusterRole, []rbacv1.ClusterRoleBinding) {
	groups := pluginGroups(reg)
	plugins := make([]string, 0, len(groups))
	for p := range groups {
		plugins = append(plugins, p)
	}
	slices.Sort(plugins)
	roles := make([]rbacv1.ClusterRole, 0, len(plugins))
	bindings := make([]rbacv1.ClusterRoleBinding, 0, len(plugins))
	for _, p := range plugins {
		roles = append(roles, clusterRole(reg, p, groups[p]))
		bindings = append(bindings, clusterRoleBinding(p))
	}
	return roles, bindings
}

// pluginGroups maps each plugin reg binds to the groups that bind it.
func pluginGroups(reg *schemas.Registry) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, r := range reg.Resources() {
		for _, rv := range r.Versions {
			if rv.Hooks == nil {
				continue
			}
			for _, b := range rv.Hooks.Plugins() {
				if out[b.Plugin] == nil {
					out[b.Plugin] = map[string]bool{}
				}
				out[b.Plugin][r.Group] = true
			}
		}
	}
	return out
}

func clusterRole(reg *schemas.Registry, plugin string, groups map[string]bool) rbacv1.ClusterRole {
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	slices.Sort(names)
	role := rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"},
		ObjectMeta: objectMeta(plugin),
	}
	for _, g := range names {
		role.Rules = append(role.Rules, rbacv1.PolicyRule{
			APIGroups: []string{g},
			Resources: groupResources(reg.Group(g)),
			Verbs:     slices.Clone(pluginVerbs),
		})
	}
	role.Rules = append(role.Rules, eventsRule())
	return role
}

// groupResources names g's resources and their subresources, sorted.
func groupResources(g *schemas.Group) []string {
	var out []string
	if g == nil {
		return out
	}
	for _, r := range g.Resources {
		out = append(out, r.Plural)
		status, scale := false, false
		for _, rv := range r.Versions {
			status = status || rv.StatusSubresource
			scale = scale || rv.Scale != nil
		}
		if status {
			out = append(out, r.Plural+"/status")
		}
		if scale {
			out = append(out, r.Plural+"/scale")
		}
	}
	slices.Sort(out)
	return out
}

func clusterRoleBinding(plugin string) rbacv1.ClusterRoleBinding {
	return rbacv1.ClusterRoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"},
		ObjectMeta: objectMeta(plugin),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: RoleName(plugin)},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: UserName(plugin)}},
	}
}

func objectMeta(plugin string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:        RoleName(plugin),
		Annotations: map[string]string{AutoupdateAnnotation: "true"},
		Labels:      map[string]string{BootstrappingLabel: "rbac-defaults"},
	}
}
