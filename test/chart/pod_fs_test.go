package chart

import (
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/specd-io/specd/internal/configvolume"
)

// podFS lays the volumes of a rendered pod out on this machine, as the
// kubelet would: ConfigMaps and Secrets written as the kubelet writes
// them (internal/configvolume), emptyDirs and the data claim as empty
// folders; mounts maps each mount path to its folder.
type podFS struct {
	root   string
	mounts map[string]string
	// configMaps are the rendered ConfigMaps' folders, by name.
	configMaps map[string]string
}

// newPodFS lays out pod's volumes for container c. objs holds the
// rendered ConfigMaps; secrets the content of the Secrets the pod names
// (which a user makes, not the chart).
func newPodFS(t *testing.T, objs objects, pod corev1.PodTemplateSpec, c corev1.Container, secrets map[string]map[string]string) *podFS {
	t.Helper()
	// Short: the embedded etcd's socket goes under the data directory,
	// and a unix socket's path has at most 107 bytes.
	root, err := os.MkdirTemp("", "pod-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	fs := &podFS{root: root, mounts: map[string]string{}, configMaps: map[string]string{}}
	for _, m := range c.VolumeMounts {
		dir := filepath.Join(root, m.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		fs.mounts[m.MountPath] = dir
		fs.fill(t, objs, pod, m.Name, dir, secrets)
	}
	return fs
}

// fill writes the content of volume name into dir.
func (fs *podFS) fill(t *testing.T, objs objects, pod corev1.PodTemplateSpec, name, dir string, secrets map[string]map[string]string) {
	t.Helper()
	if name == "data" {
		return // the StatefulSet's claim: empty at first
	}
	v := volume(t, pod, name)
	var files map[string]string
	switch {
	case v.EmptyDir != nil:
		return
	case v.ConfigMap != nil:
		var cm corev1.ConfigMap
		objs.get(t, "ConfigMap", v.ConfigMap.Name, &cm)
		files = cm.Data
		fs.configMaps[cm.Name] = dir
	case v.Secret != nil:
		var ok bool
		if files, ok = secrets[v.Secret.SecretName]; !ok {
			t.Fatalf("volume %s: the test has no Secret %s", name, v.Secret.SecretName)
		}
	default:
		t.Fatalf("volume %s: %+v, which the test cannot lay out", name, v.VolumeSource)
	}
	if err := configvolume.Write(dir, files); err != nil {
		t.Fatal(err)
	}
}

// path is where the pod's path is on this machine.
func (fs *podFS) path(t *testing.T, p string) string {
	t.Helper()
	// The longest mount path that holds p.
	paths := make([]string, 0, len(fs.mounts))
	for m := range fs.mounts {
		paths = append(paths, m)
	}
	slices.SortFunc(paths, func(a, b string) int { return len(b) - len(a) })
	for _, m := range paths {
		if p == m || strings.HasPrefix(p, m+"/") {
			return fs.mounts[m] + strings.TrimPrefix(p, m)
		}
	}
	t.Fatalf("%s is in no volume of the pod: on its read-only root", p)
	return ""
}

// serial is a serial number no other certificate of the test has.
func serial() *big.Int { return big.NewInt(time.Now().UnixNano()) }
