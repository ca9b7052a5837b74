package rbac

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/specd-io/specd/engine"
)

// Mutators are the engine's Mutators of the two binding resources
// (engine.Options.Mutators): kube's defaults of rbac/v1, which its typed
// clients rely on. A roleRef without apiGroup (client-go sends "") names
// the RBAC group, and so does a User or Group subject without one. They
// are defaults of the type, so they apply whatever the authorization
// mode.
func Mutators() map[string]engine.Mutator {
	return map[string]engine.Mutator{
		plurals[roleBindings] + "." + Group:        applyBindingDefaults,
		plurals[clusterRoleBindings] + "." + Group: applyBindingDefaults,
	}
}

// applyBindingDefaults is kube's SetDefaults_RoleBinding (and
// ClusterRoleBinding) and SetDefaults_Subject, on the object tree.
func applyBindingDefaults(_ string, obj map[string]any) ([]string, error) {
	if ref, ok := obj["roleRef"].(map[string]any); ok {
		defaultGroup(ref)
	}
	subjects, _ := obj["subjects"].([]any)
	for _, s := range subjects {
		if subject, ok := s.(map[string]any); ok && (subject["kind"] == rbacv1.UserKind || subject["kind"] == rbacv1.GroupKind) {
			defaultGroup(subject)
		}
	}
	return nil, nil
}

// defaultGroup sets m's apiGroup to the RBAC group when it is missing or
// empty.
func defaultGroup(m map[string]any) {
	if g, _ := m["apiGroup"].(string); g == "" {
		m["apiGroup"] = Group
	}
}
