package chart

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// TestReplicated: a Deployment of N replicas on the external etcd with
// its TLS from a Secret, the serving certificate from cert-manager, the
// schemas from the user's ConfigMap, a ServiceMonitor trusting the
// serving CA, and no claim, StatefulSet or host RBAC.
func TestReplicated(t *testing.T) {
	objs := render(t, replicatedValues(map[string]any{"backup": map[string]any{"enabled": true, "volume": map[string]any{"emptyDir": map[string]any{}}}}))
	var dep appsv1.Deployment
	objs.get(t, "Deployment", fullname, &dep)
	if dep.Spec.Replicas == nil || *dep.Spec.Replicas != 3 {
		t.Errorf("replicas %v, want 3", dep.Spec.Replicas)
	}
	if ru := dep.Spec.Strategy.RollingUpdate; ru == nil || ru.MaxUnavailable.IntValue() != 0 {
		t.Errorf("rolling update %+v, want no replica down before its successor is ready", ru)
	}
	pod := dep.Spec.Template
	checkPod(t, pod)
	checkSelected(t, objs, pod.Labels)
	if v := volume(t, pod, "data"); v.EmptyDir == nil {
		t.Errorf("data volume %+v, want an emptyDir (etcd is elsewhere)", v.VolumeSource)
	}
	if v := volume(t, pod, "schemas"); v.ConfigMap == nil || v.ConfigMap.Name != "my-schemas" {
		t.Errorf("schemas volume %+v, want ConfigMap my-schemas", v.VolumeSource)
	}
	c := container(t, pod)
	f := flags(t, c)
	checkEtcdFlags(t, f, mountPath(c, "etcd-tls"))
	if s := volume(t, pod, "etcd-tls").Secret; s == nil || s.SecretName != "etcd-client" {
		t.Errorf("etcd-tls volume %+v, want Secret etcd-client", s)
	}
	checkCertManager(t, objs, pod, f)
	checkServiceMonitor(t, objs, "secret", fullname+"-tls")
	var cj batchv1.CronJob
	objs.get(t, "CronJob", fullname+"-backup", &cj)
	if args := cj.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Args; !slices.Contains(args, "--etcd-servers=https://etcd-0.etcd:2379") || !slices.Contains(args, "--etcd-cafile=/etc/specd/etcd/ca.crt") {
		t.Errorf("backup args %q, want a snapshot of the first etcd member over TLS", args)
	}
	for _, kind := range []string{"StatefulSet", "PersistentVolumeClaim", "APIService", "ClusterRoleBinding", "RoleBinding"} {
		if objs.has(kind) {
			t.Errorf("replicated renders a %s: %v", kind, objs.names())
		}
	}
	for _, cm := range objs.ofKind("ConfigMap") {
		if cm.name() == fullname+"-schemas" {
			t.Error("a schemas ConfigMap of the chart beside schemas.configMap")
		}
	}
}

func checkEtcdFlags(t *testing.T, f map[string]string, dir string) {
	t.Helper()
	want := map[string]string{
		"etcd-servers":  "https://etcd-0.etcd:2379,https://etcd-1.etcd:2379,https://etcd-2.etcd:2379",
		"etcd-cafile":   dir + "/ca.crt",
		"etcd-certfile": dir + "/tls.crt",
		"etcd-keyfile":  dir + "/tls.key",
	}
	for name, value := range want {
		if f[name] != value || dir == "" {
			t.Errorf("--%s=%q (etcd-tls mounted at %q), want %q", name, f[name], dir, value)
		}
	}
}

// TestAggregated: the host RBAC of sample-apiserver and metrics-server
// (auth-delegator, the authentication reader in kube-system), specd's
// groups in the cluster's view, edit and admin roles, and the flags that
// register the APIServices with specd's CA; on the embedded etcd.
func TestAggregated(t *testing.T) {
	objs := render(t, aggregatedValues(t, nil))
	var sts appsv1.StatefulSet
	objs.get(t, "StatefulSet", fullname, &sts)
	pod := sts.Spec.Template
	checkPod(t, pod)
	if pod.Spec.AutomountServiceAccountToken == nil || !*pod.Spec.AutomountServiceAccountToken || pod.Spec.ServiceAccountName != fullname {
		t.Errorf("service account %q, automount %v: an aggregated specd needs its token", pod.Spec.ServiceAccountName, pod.Spec.AutomountServiceAccountToken)
	}
	f := flags(t, container(t, pod))
	for name, value := range map[string]string{"aggregated": "", "register-apiservices": "", "apiservice-service": namespace + "/" + fullname, "apiservice-port": "443"} {
		if got, ok := f[name]; !ok || got != value {
			t.Errorf("--%s=%q (given: %v), want %q", name, got, ok, value)
		}
	}
	if !strings.Contains(f["tls-sans"], fullname+"."+namespace+".svc") {
		t.Errorf("--tls-sans=%q, want the Service's name %s.%s.svc, which the aggregator checks", f["tls-sans"], fullname, namespace)
	}
	checkHostRBAC(t, objs, true)
	if objs.has("APIService") {
		t.Errorf("APIServices rendered while specd registers them: %v", objs.names())
	}
}

// checkHostRBAC checks the bindings to system:auth-delegator and to
// extension-apiserver-authentication-reader, the role for namespaces,
// events (and APIServices when specd registers them), and the aggregated
// roles.
func checkHostRBAC(t *testing.T, objs objects, registers bool) {
	t.Helper()
	sa := rbacv1.Subject{Kind: "ServiceAccount", Name: fullname, Namespace: namespace}
	var delegator rbacv1.ClusterRoleBinding
	objs.get(t, "ClusterRoleBinding", namespace+":"+fullname+":system:auth-delegator", &delegator)
	if delegator.RoleRef.Name != "system:auth-delegator" || delegator.RoleRef.Kind != "ClusterRole" || !slices.Equal(delegator.Subjects, []rbacv1.Subject{sa}) {
		t.Errorf("auth-delegator binding %+v, want system:auth-delegator for %+v", delegator, sa)
	}
	var reader rbacv1.RoleBinding
	objs.get(t, "RoleBinding", namespace+":"+fullname+":extension-apiserver-authentication-reader", &reader)
	if reader.Namespace != "kube-system" || reader.RoleRef.Name != "extension-apiserver-authentication-reader" || reader.RoleRef.Kind != "Role" || !slices.Equal(reader.Subjects, []rbacv1.Subject{sa}) {
		t.Errorf("authentication reader binding %+v, want Role extension-apiserver-authentication-reader in kube-system", reader)
	}
	var own rbacv1.ClusterRole
	objs.get(t, "ClusterRole", namespace+":"+fullname, &own)
	for _, want := range []string{"namespaces:watch", "events:create"} {
		if !grants(own, want) {
			t.Errorf("ClusterRole %s does not grant %s: %+v", own.Name, want, own.Rules)
		}
	}
	if grants(own, "apiservices:create") != registers {
		t.Errorf("ClusterRole %s grants apiservices:create: %v, want %v", own.Name, !registers, registers)
	}
	var binding rbacv1.ClusterRoleBinding
	objs.get(t, "ClusterRoleBinding", own.Name, &binding)
	if binding.RoleRef.Name != own.Name || !slices.Equal(binding.Subjects, []rbacv1.Subject{sa}) {
		t.Errorf("binding %+v, want %s for %+v", binding, own.Name, sa)
	}
	checkAggregatedRoles(t, objs)
}

// grants reports whether role allows "resource:verb".
func grants(role rbacv1.ClusterRole, what string) bool {
	resource, verb, _ := strings.Cut(what, ":")
	for _, r := range role.Rules {
		if slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb) {
			return true
		}
	}
	return false
}

// checkAggregatedRoles: a ClusterRole labelled aggregate-to-view, -edit
// and -admin for specd's groups, view reading and edit writing.
func checkAggregatedRoles(t *testing.T, objs objects) {
	t.Helper()
	for role, verb := range map[string]string{"view": "watch", "edit": "delete", "admin": "deletecollection"} {
		var cr rbacv1.ClusterRole
		objs.get(t, "ClusterRole", namespace+":"+fullname+":aggregate-to-"+role, &cr)
		if cr.Labels["rbac.authorization.k8s.io/aggregate-to-"+role] != "true" {
			t.Errorf("%s labels %v, want rbac.authorization.k8s.io/aggregate-to-%s", cr.Name, cr.Labels, role)
		}
		if len(cr.Rules) != 1 || !slices.Equal(cr.Rules[0].APIGroups, []string{"shop.example.com"}) || !slices.Equal(cr.Rules[0].Resources, []string{"*"}) || !slices.Contains(cr.Rules[0].Verbs, verb) {
			t.Errorf("%s rules %+v, want %s of every resource of shop.example.com", cr.Name, cr.Rules, verb)
		}
		if role == "view" && slices.Contains(cr.Rules[0].Verbs, "create") {
			t.Errorf("%s lets viewers create", cr.Name)
		}
	}
}

// apiService is the part of an apiregistration.k8s.io/v1 APIService the
// tests read (strict decoding refuses any other field).
type apiService struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name        string            `json:"name"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		Group                string `json:"group"`
		Version              string `json:"version"`
		GroupPriorityMinimum int    `json:"groupPriorityMinimum"`
		VersionPriority      int    `json:"versionPriority"`
		CABundle             string `json:"caBundle"`
		Service              struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
			Port      int    `json:"port"`
		} `json:"service"`
	} `json:"spec"`
}

// TestAggregatedAPIServices: with registerAPIServices false the chart
// renders an APIService per group version, pointing at the Service,
// with the priorities given and the CA: injected by cert-manager, or the
// one given with an existing Secret. None skips TLS verification (the
// strict decoding refuses insecureSkipTLSVerify).
func TestAggregatedAPIServices(t *testing.T) {
	for source, tls := range map[string]map[string]any{
		"certManager": {"source": "certManager"},
		"secret":      {"source": "secret", "secret": map[string]any{"name": "specd-serving"}, "caBundle": testCA},
	} {
		t.Run(source, func(t *testing.T) {
			objs := render(t, aggregatedValues(t, map[string]any{"tls": tls,
				"aggregated": map[string]any{"registerAPIServices": false, "groups": shopGroups}}))
			checkHostRBAC(t, objs, false)
			for _, v := range []string{"v1", "v2beta1"} {
				var as apiService
				objs.get(t, "APIService", v+".shop.example.com", &as)
				s := as.Spec
				if s.Group != "shop.example.com" || s.Version != v || s.GroupPriorityMinimum != 2000 || s.VersionPriority != 20 ||
					s.Service.Name != fullname || s.Service.Namespace != namespace || s.Service.Port != 443 {
					t.Errorf("APIService %s: %+v", as.Metadata.Name, s)
				}
				inject := as.Metadata.Annotations["cert-manager.io/inject-ca-from"]
				switch source {
				case "certManager":
					if inject != namespace+"/"+fullname || s.CABundle != "" {
						t.Errorf("APIService %s: inject-ca-from %q, caBundle %q; want the Certificate %s/%s injected", as.Metadata.Name, inject, s.CABundle, namespace, fullname)
					}
				case "secret":
					if s.CABundle != base64.StdEncoding.EncodeToString([]byte(testCA)) || inject != "" {
						t.Errorf("APIService %s: caBundle %q, want tls.caBundle", as.Metadata.Name, s.CABundle)
					}
				}
			}
			f := flags(t, container(t, statefulPod(t, objs)))
			if _, ok := f["register-apiservices"]; ok {
				t.Errorf("flags %v: --register-apiservices while the chart renders the APIServices", f)
			}
		})
	}
}

func statefulPod(t *testing.T, objs objects) corev1.PodTemplateSpec {
	t.Helper()
	var sts appsv1.StatefulSet
	objs.get(t, "StatefulSet", fullname, &sts)
	return sts.Spec.Template
}
