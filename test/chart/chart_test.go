package chart

import (
	"maps"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// TestLint: `helm lint --strict` passes with the defaults and with each
// mode's values.
func TestLint(t *testing.T) {
	for name, values := range map[string]map[string]any{
		"defaults":   {},
		"standalone": standaloneValues(t, nil),
		"replicated": replicatedValues(nil),
		"aggregated": aggregatedValues(t, nil),
	} {
		t.Run(name, func(t *testing.T) {
			if out, err := runHelm(t, "lint", "--strict", chartDir, "--namespace", namespace, "-f", valuesFile(t, values)); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
		})
	}
}

// TestStandalone: a StatefulSet of one replica whose embedded etcd is on
// a claim, the schemas from the chart's ConfigMap, a Service and a PDB
// that select its pod, the audit policy from a ConfigMap, a backup
// CronJob on the claim, and nothing of the other modes.
func TestStandalone(t *testing.T) {
	objs := render(t, standaloneValues(t, nil))
	var sts appsv1.StatefulSet
	objs.get(t, "StatefulSet", fullname, &sts)
	if sts.Spec.Replicas == nil || *sts.Spec.Replicas != 1 {
		t.Errorf("replicas %v, want 1", sts.Spec.Replicas)
	}
	pod := sts.Spec.Template
	checkPod(t, pod)
	checkSelected(t, objs, pod.Labels)
	claims := sts.Spec.VolumeClaimTemplates
	if len(claims) != 1 || claims[0].Name != "data" || claims[0].Spec.Resources.Requests.Storage().String() != "8Gi" {
		t.Errorf("volume claim templates %+v, want data of 8Gi", claims)
	}
	if p := sts.Spec.PersistentVolumeClaimRetentionPolicy; p == nil || p.WhenDeleted != appsv1.RetainPersistentVolumeClaimRetentionPolicyType {
		t.Errorf("claim retention %+v, want the claim kept when the StatefulSet goes", p)
	}
	f := flags(t, container(t, pod))
	if _, ok := f["etcd-servers"]; ok {
		t.Errorf("flags %v: --etcd-servers in standalone", f)
	}
	checkSchemasConfigMap(t, objs, pod)
	checkAudit(t, objs, pod, f)
	checkBackup(t, objs, sts)
	for _, kind := range []string{"Deployment", "APIService", "ClusterRole", "ClusterRoleBinding", "RoleBinding", "Certificate", "ServiceMonitor"} {
		if objs.has(kind) {
			t.Errorf("standalone renders a %s: %v", kind, objs.names())
		}
	}
}

// checkSelected: the Service and the PodDisruptionBudget select the pod,
// and the Service's port reaches the container's.
func checkSelected(t *testing.T, objs objects, podLabels map[string]string) {
	t.Helper()
	var svc corev1.Service
	objs.get(t, "Service", fullname, &svc)
	if !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(podLabels)) || len(svc.Spec.Selector) == 0 {
		t.Errorf("Service selector %v does not select the pod (%v)", svc.Spec.Selector, podLabels)
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 443 || svc.Spec.Ports[0].TargetPort.String() != "https" {
		t.Errorf("Service ports %+v, want 443 to https", svc.Spec.Ports)
	}
	var pdb policyv1.PodDisruptionBudget
	objs.get(t, "PodDisruptionBudget", fullname, &pdb)
	if pdb.Spec.Selector == nil || !labels.SelectorFromSet(pdb.Spec.Selector.MatchLabels).Matches(labels.Set(podLabels)) {
		t.Errorf("PodDisruptionBudget selector %v does not select the pod", pdb.Spec.Selector)
	}
	if pdb.Spec.MaxUnavailable == nil && pdb.Spec.MinAvailable == nil {
		t.Error("PodDisruptionBudget without maxUnavailable or minAvailable")
	}
}

// checkSchemasConfigMap: the schemas volume is the chart's ConfigMap,
// which holds the schema files given.
func checkSchemasConfigMap(t *testing.T, objs objects, pod corev1.PodTemplateSpec) {
	t.Helper()
	v := volume(t, pod, "schemas")
	if v.ConfigMap == nil || v.ConfigMap.Name != fullname+"-schemas" {
		t.Fatalf("schemas volume %+v, want ConfigMap %s-schemas", v.VolumeSource, fullname)
	}
	var cm corev1.ConfigMap
	objs.get(t, "ConfigMap", fullname+"-schemas", &cm)
	want := shopSchemas(t)
	if got := slices.Sorted(maps.Keys(cm.Data)); !slices.Equal(got, slices.Sorted(maps.Keys(want))) {
		t.Fatalf("schema ConfigMap keys %v, want %v", got, slices.Sorted(maps.Keys(want)))
	}
	for name, content := range want {
		if cm.Data[name] != content {
			t.Errorf("schema ConfigMap %s differs from the file", name)
		}
	}
}

// checkAudit: the policy from its ConfigMap, the log on standard output.
func checkAudit(t *testing.T, objs objects, pod corev1.PodTemplateSpec, f map[string]string) {
	t.Helper()
	var cm corev1.ConfigMap
	objs.get(t, "ConfigMap", fullname+"-audit", &cm)
	if !strings.Contains(cm.Data["policy.yaml"], "kind: Policy") {
		t.Errorf("audit ConfigMap %v, want an audit Policy in policy.yaml", cm.Data)
	}
	if v := volume(t, pod, "audit"); v.ConfigMap == nil || v.ConfigMap.Name != cm.Name {
		t.Errorf("audit volume %+v, want ConfigMap %s", v.VolumeSource, cm.Name)
	}
	if mountPath(container(t, pod), "audit")+"/policy.yaml" != f["audit-policy-file"] || f["audit-log-path"] != "-" {
		t.Errorf("flags %v: want --audit-policy-file in the audit volume and --audit-log-path=-", f)
	}
}

// checkBackup: the CronJob snapshots the StatefulSet's claim, on its
// pod's node, into the backup volume, a file per Job.
func checkBackup(t *testing.T, objs objects, sts appsv1.StatefulSet) {
	t.Helper()
	var cj batchv1.CronJob
	objs.get(t, "CronJob", fullname+"-backup", &cj)
	pod := cj.Spec.JobTemplate.Spec.Template
	claim := volume(t, pod, "data").PersistentVolumeClaim
	// A StatefulSet's claims are named TEMPLATE-STATEFULSET-ORDINAL.
	if want := sts.Spec.VolumeClaimTemplates[0].Name + "-" + sts.Name + "-0"; claim == nil || claim.ClaimName != want {
		t.Errorf("backup data volume %+v, want claim %s", claim, want)
	}
	if b := volume(t, pod, "backup").PersistentVolumeClaim; b == nil || b.ClaimName != "specd-backups" {
		t.Errorf("backup volume %+v, want claim specd-backups", b)
	}
	c := pod.Spec.Containers[0]
	if want := []string{"snapshot", "save", "/backup/$(JOB_NAME).db", "--data-dir=/var/lib/specd/data"}; !slices.Equal(c.Args, want) {
		t.Errorf("backup args %q, want %q", c.Args, want)
	}
	aff := pod.Spec.Affinity
	if aff == nil || aff.PodAffinity == nil || len(aff.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 ||
		!labels.SelectorFromSet(aff.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].LabelSelector.MatchLabels).Matches(labels.Set(sts.Spec.Template.Labels)) {
		t.Errorf("backup affinity %+v, want the node of specd's pod", aff)
	}
}
