package chart

import (
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// scraperValues are aggregated values with a ServiceMonitor and no
// authorization given: the chart makes the scraper's credentials.
func scraperValues(t *testing.T) map[string]any {
	return aggregatedValues(t, map[string]any{"tls": map[string]any{"source": "certManager"},
		"metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": true}}})
}

// TestServiceMonitorCredentials: in mode aggregated, with no
// authorization given, the ServiceMonitor's bearer token is that of a
// ServiceAccount of the chart's, from a token Secret of it, and the
// ServiceAccount is bound to the metrics-reader ClusterRole, which may
// get /metrics and nothing else. Given an authorization, the chart makes
// none of them. (test/aggregated proves that the token gets /metrics
// from a running specd.)
func TestServiceMonitorCredentials(t *testing.T) {
	objs := render(t, scraperValues(t))
	checkServiceMonitor(t, objs, "secret", fullname+"-tls")
	a := endpointAuthorization(t, objs)
	if creds, _ := a["credentials"].(map[string]any); a["type"] != "Bearer" || !maps.Equal(creds, map[string]any{"name": fullname + "-metrics-token", "key": "token"}) {
		t.Errorf("ServiceMonitor authorization %v, want a bearer token: key token of Secret %s-metrics-token", a, fullname)
	}
	checkScraperIdentity(t, objs)
	given := scraperValues(t)
	given["metrics"] = map[string]any{"serviceMonitor": map[string]any{"enabled": true,
		"authorization": map[string]any{"type": "Bearer", "credentials": map[string]any{"name": "prometheus-token", "key": "token"}}}}
	for _, o := range render(t, given) {
		if o.name() == fullname+"-metrics" || o.name() == fullname+"-metrics-token" || o.name() == namespace+":"+fullname+":metrics-reader" && o.kind() == "ClusterRoleBinding" {
			t.Errorf("%s %s rendered beside the authorization given", o.kind(), o.name())
		}
	}
}

// endpointAuthorization is the authorization of the ServiceMonitor's
// one endpoint.
func endpointAuthorization(t *testing.T, objs objects) map[string]any {
	t.Helper()
	for _, o := range objs.ofKind("ServiceMonitor") {
		endpoints, _ := o["spec"].(map[string]any)["endpoints"].([]any)
		if len(endpoints) == 1 {
			a, _ := endpoints[0].(map[string]any)["authorization"].(map[string]any)
			return a
		}
	}
	t.Fatalf("no ServiceMonitor of one endpoint in %v", objs.names())
	return nil
}

// checkScraperIdentity: the ServiceAccount, its token Secret, and its
// binding to the metrics-reader ClusterRole.
func checkScraperIdentity(t *testing.T, objs objects) {
	t.Helper()
	var sa corev1.ServiceAccount
	objs.get(t, "ServiceAccount", fullname+"-metrics", &sa)
	var secret corev1.Secret
	objs.get(t, "Secret", fullname+"-metrics-token", &secret)
	if secret.Type != corev1.SecretTypeServiceAccountToken || secret.Annotations[corev1.ServiceAccountNameKey] != sa.Name {
		t.Errorf("Secret %s: type %q, annotations %v; want a token of ServiceAccount %s", secret.Name, secret.Type, secret.Annotations, sa.Name)
	}
	var role rbacv1.ClusterRole
	objs.get(t, "ClusterRole", namespace+":"+fullname+":metrics-reader", &role)
	want := []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}
	if !slices.EqualFunc(role.Rules, want, func(a, b rbacv1.PolicyRule) bool {
		return slices.Equal(a.NonResourceURLs, b.NonResourceURLs) && slices.Equal(a.Verbs, b.Verbs) && len(a.Resources) == 0
	}) {
		t.Errorf("ClusterRole %s rules %+v, want get of /metrics only", role.Name, role.Rules)
	}
	var binding rbacv1.ClusterRoleBinding
	objs.get(t, "ClusterRoleBinding", role.Name, &binding)
	subject := rbacv1.Subject{Kind: "ServiceAccount", Name: sa.Name, Namespace: namespace}
	if binding.RoleRef.Name != role.Name || !slices.Equal(binding.Subjects, []rbacv1.Subject{subject}) {
		t.Errorf("ClusterRoleBinding %s: %+v, want %s for %+v", binding.Name, binding, role.Name, subject)
	}
}
