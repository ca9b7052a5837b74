package api

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specd-io/specd/test/e2e/harness"
)

// TestKubectlClusterInfo runs `kubectl cluster-info`, which lists the
// Services labelled kubernetes.io/cluster-service=true in kube-system,
// and reads the Service default/kubernetes.
func TestKubectlClusterInfo(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{Secure: true})
	k := harness.NewKubectl(t, s)
	out := k.OK(t, "cluster-info")
	if want := "Kubernetes control plane is running at " + s.URL + "\n"; !strings.HasPrefix(out, want) {
		t.Errorf("kubectl cluster-info printed\n%s\nwant it to start with %q", out, want)
	}
	// Services are read-only, and the one there is points at specd, as
	// kube-apiserver's does at itself.
	if out := k.OK(t, "get", "svc", "-A", "-o", "name"); out != "service/kubernetes\n" {
		t.Errorf("kubectl get svc -A printed %q, want only service/kubernetes", out)
	}
	_, port, _ := strings.Cut(s.Addr, ":")
	got := k.OK(t, "get", "svc", "kubernetes", "-n", "default", "-o", "jsonpath={.spec.clusterIP} {.spec.ports[0].name} {.spec.ports[0].port} {.metadata.labels.component}")
	if want := "127.0.0.1 https " + port + " apiserver"; got != want {
		t.Errorf("Service default/kubernetes: %q, want %q", got, want)
	}
	if out := k.Fail(t, "create", "service", "clusterip", "web", "--tcp=80:8080"); !strings.Contains(out, "does not allow this method") {
		t.Errorf("kubectl create service: %q, want kube's MethodNotAllowed", out)
	}
}

// TestKubeRootCA: every namespace holds the ConfigMap kube-root-ca.crt
// with the CA that signed specd's certificate, a new namespace too, as
// kube-controller-manager's root CA publisher writes it.
func TestKubeRootCA(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{Secure: true})
	k := harness.NewKubectl(t, s)
	ca, err := os.ReadFile(filepath.Join(s.DataDir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	k.OK(t, "create", "namespace", "team-a")
	for _, ns := range []string{"default", "kube-system", "team-a"} {
		harness.Eventually(t, "kube-root-ca.crt in "+ns, func() bool {
			r := k.Run(t, "get", "configmap", "kube-root-ca.crt", "-n", ns, "-o", `jsonpath={.data.ca\.crt}`)
			return r.Code == 0 && r.Stdout == string(ca)
		})
	}
}

// TestKubectlApplySetPrune applies a set of two widgets as an ApplySet
// (the parent a Secret, kubectl's default), then the set without one of
// them: kubectl prunes it, and only it.
func TestKubectlApplySetPrune(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{Secure: true})
	k := harness.NewKubectl(t, s)
	// kubectl v1.37 still offers --applyset only behind this gate.
	k.Env = []string{"KUBECTL_APPLYSET=true"}
	widget := func(name, color string) string {
		return "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: " + name + "\nspec:\n  color: " + color + "\n"
	}
	k.Manifest(t, "keep.yaml", widget("keep", "red"))
	drop := k.Manifest(t, "drop.yaml", widget("drop", "blue"))
	apply := []string{"apply", "-n", "default", "--prune", "--applyset=shop-set", "-f", k.Dir}
	k.OK(t, apply...)
	for _, name := range []string{"keep", "drop"} {
		if got := k.OK(t, "get", "widget", name, "-n", "default", "-o", "jsonpath={.metadata.labels.applyset\\.kubernetes\\.io/part-of}"); got == "" {
			t.Errorf("widget %s has no applyset.kubernetes.io/part-of label", name)
		}
	}
	kinds := k.OK(t, "get", "secret", "shop-set", "-n", "default", "-o", "jsonpath={.metadata.annotations.applyset\\.kubernetes\\.io/contains-group-kinds}")
	if kinds != "Widget.shop.example.com" {
		t.Errorf("the ApplySet parent Secret lists group kinds %q, want Widget.shop.example.com", kinds)
	}

	if err := os.Remove(drop); err != nil {
		t.Fatal(err)
	}
	out := k.OK(t, apply...)
	if !strings.Contains(out, "widget.shop.example.com/drop pruned") {
		t.Errorf("kubectl apply did not say it pruned drop:\n%s", out)
	}
	if r := k.Run(t, "get", "widget", "drop", "-n", "default"); r.Code == 0 || !strings.Contains(r.Stderr, "NotFound") {
		t.Errorf("widget drop after the prune:\n%s", r)
	}
	k.OK(t, "get", "widget", "keep", "-n", "default")
}
