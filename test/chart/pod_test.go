package chart

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// container is the specd container of a pod template.
func container(t *testing.T, pod corev1.PodTemplateSpec) corev1.Container {
	t.Helper()
	if len(pod.Spec.Containers) != 1 || pod.Spec.Containers[0].Name != "specd" {
		t.Fatalf("containers %v, want one named specd", pod.Spec.Containers)
	}
	return pod.Spec.Containers[0]
}

// flags are the container's `specd serve` flags, by name (--name=value).
func flags(t *testing.T, c corev1.Container) map[string]string {
	t.Helper()
	if len(c.Args) == 0 || c.Args[0] != "serve" {
		t.Fatalf("args %q, want specd serve", c.Args)
	}
	out := map[string]string{}
	for _, a := range c.Args[1:] {
		name, value, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		out[name] = value
	}
	return out
}

// checkPod checks what every mode's pod has: non-root with a read-only
// root file system, the probes, resources, and each mounted volume
// declared (and the data directory, /tmp and the schemas mounted).
func checkPod(t *testing.T, pod corev1.PodTemplateSpec) {
	t.Helper()
	c := container(t, pod)
	psc, sc := pod.Spec.SecurityContext, c.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser != 65532 || psc.FSGroup == nil || *psc.FSGroup != 65532 {
		t.Errorf("pod securityContext %+v, want non-root 65532 with fsGroup 65532", psc)
	}
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("container securityContext %+v, want a read-only root, no privilege escalation, no capabilities", sc)
	}
	checkProbe(t, "liveness", c.LivenessProbe, "/livez")
	checkProbe(t, "readiness", c.ReadinessProbe, "/readyz")
	checkProbe(t, "startup", c.StartupProbe, "/livez")
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("resources %+v, want CPU and memory requests and a memory limit", c.Resources)
	}
	if len(c.Ports) != 1 || c.Ports[0].Name != "https" || c.Ports[0].ContainerPort != 8443 {
		t.Errorf("ports %+v, want https 8443", c.Ports)
	}
	if f := flags(t, c); f["listen"] != ":8443" || f["data-dir"] != "/var/lib/specd/data" || f["schemas"] != "/etc/specd/schemas" {
		t.Errorf("flags %v: want --listen=:8443, --data-dir=/var/lib/specd/data, --schemas=/etc/specd/schemas", f)
	}
	checkMounts(t, pod, c)
}

func checkProbe(t *testing.T, what string, p *corev1.Probe, path string) {
	t.Helper()
	if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != path || p.HTTPGet.Scheme != corev1.URISchemeHTTPS || p.HTTPGet.Port.String() != "https" {
		t.Errorf("%s probe %+v, want GET %s over HTTPS on port https", what, p, path)
	}
}

// checkMounts: every mount names a volume of the pod (the StatefulSet's
// data is a claim template, checked by its caller), and the folders
// specd writes or reads are mounted.
func checkMounts(t *testing.T, pod corev1.PodTemplateSpec, c corev1.Container) {
	t.Helper()
	vols := map[string]bool{}
	for _, v := range pod.Spec.Volumes {
		vols[v.Name] = true
	}
	at := map[string]string{}
	for _, m := range c.VolumeMounts {
		at[m.MountPath] = m.Name
		if !vols[m.Name] && m.Name != "data" {
			t.Errorf("mount %s at %s: no such volume", m.Name, m.MountPath)
		}
	}
	for path, name := range map[string]string{"/var/lib/specd": "data", "/tmp": "tmp", "/etc/specd/schemas": "schemas"} {
		if at[path] != name {
			t.Errorf("%s mounts %q, want volume %s", path, at[path], name)
		}
	}
}

// volume is the pod's volume of name.
func volume(t *testing.T, pod corev1.PodTemplateSpec, name string) corev1.Volume {
	t.Helper()
	for _, v := range pod.Spec.Volumes {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no volume %s in %+v", name, pod.Spec.Volumes)
	return corev1.Volume{}
}

// mountPath is where the container mounts volume name.
func mountPath(c corev1.Container, name string) string {
	for _, m := range c.VolumeMounts {
		if m.Name == name {
			return m.MountPath
		}
	}
	return ""
}
