package chart

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/test/testkube"
	sigsyaml "sigs.k8s.io/yaml"
)

// kubectlTimeout bounds one kubectl command.
const kubectlTimeout = 2 * time.Minute

// The CRDs the chart's optional objects need, from the CRD corpus
// (testdata/crds): cert-manager's Issuer and Certificate, and the
// Prometheus operator's ServiceMonitor.
var crds = []string{
	"cert-manager/crds/cert-manager.io_certificates.yaml",
	"cert-manager/crds/cert-manager.io_issuers.yaml",
	"prometheus-operator/crds/monitoring.coreos.com_servicemonitors.yaml",
}

// TestDryRunServer: every rendering the other tests check, and every
// example of docs/deploy.md, passes `kubectl apply --dry-run=server`
// against kube-apiserver: each object is valid as the API server itself
// validates it (kube's validation of the built-in kinds, the CRDs'
// schemas, admission), which `helm lint` does not check.
func TestDryRunServer(t *testing.T) {
	renderings := dryRunRenderings(t)
	kube := testkube.Start(t, apiserverTool.Path(t))
	k := kubectlFor(kube.Kubeconfig)
	k.ok(t, "create", "namespace", namespace)
	for _, crd := range crds {
		k.ok(t, "create", "-f", filepath.Join(repoRoot, "testdata", "crds", crd))
	}
	k.ok(t, "wait", "--for=condition=Established", "--timeout=60s",
		"crd/certificates.cert-manager.io", "crd/issuers.cert-manager.io", "crd/servicemonitors.monitoring.coreos.com")
	for name, values := range renderings {
		t.Run(name, func(t *testing.T) {
			out, err := template(t, values)
			if err != nil {
				t.Fatal(err)
			}
			manifests := filepath.Join(t.TempDir(), "manifests.yaml")
			if err := os.WriteFile(manifests, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			applied, warnings := k.okWarned(t, "apply", "--dry-run=server", "-f", manifests)
			checkAllApplied(t, decode(t, out), applied)
			// A deprecated API or field, or a value kube corrects.
			if strings.Contains(warnings, "Warning:") {
				t.Errorf("kube-apiserver warns:\n%s", warnings)
			}
		})
	}
}

// dryRunRenderings are the values of each rendering, by name.
func dryRunRenderings(t *testing.T) map[string]map[string]any {
	backupTo := map[string]any{"enabled": true, "volume": map[string]any{"emptyDir": map[string]any{}}}
	r := map[string]map[string]any{
		"defaults":   {},
		"standalone": standaloneValues(t, nil),
		"replicated": replicatedValues(map[string]any{"backup": backupTo}),
		"aggregated": aggregatedValues(t, nil),
		"aggregated APIServices from cert-manager": aggregatedValues(t, map[string]any{"tls": map[string]any{"source": "certManager"},
			"aggregated": map[string]any{"registerAPIServices": false, "groups": shopGroups}}),
		"aggregated APIServices from a Secret": aggregatedValues(t, map[string]any{
			"tls":        map[string]any{"source": "secret", "secret": map[string]any{"name": "specd-serving"}, "caBundle": testCA},
			"aggregated": map[string]any{"registerAPIServices": false, "groups": shopGroups}}),
		"aggregated replicated with a ServiceMonitor": aggregatedValues(t, map[string]any{
			"etcd":    map[string]any{"servers": []any{"https://etcd-0.etcd:2379"}, "tlsSecret": "etcd-client"},
			"tls":     map[string]any{"source": "certManager"},
			"metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": true}},
			"backup":  backupTo}),
	}
	for i, values := range deployDocValues(t) {
		r[fmt.Sprintf("docs/deploy.md example %d", i+1)] = values
	}
	return r
}

// deployDocValues are the examples of values of docs/deploy.md.
func deployDocValues(t *testing.T) []map[string]any {
	t.Helper()
	md, err := os.ReadFile(filepath.Join(repoRoot, "docs", "deploy.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, m := range valuesBlock.FindAllSubmatch(md, -1) {
		var values map[string]any
		if err := sigsyaml.Unmarshal(m[1], &values); err != nil {
			t.Fatal(err)
		}
		out = append(out, values)
	}
	return out
}

// checkAllApplied: kubectl's output names every rendered object as
// applied in a server dry run.
func checkAllApplied(t *testing.T, objs objects, applied string) {
	t.Helper()
	for _, o := range objs {
		want := fmt.Sprintf("/%s ", o.name())
		found := false
		for _, line := range strings.Split(applied, "\n") {
			found = found || (strings.Contains(line, want) && strings.HasSuffix(line, "(server dry run)"))
		}
		if !found {
			t.Errorf("%s %s: not in kubectl's output:\n%s", o.kind(), o.name(), applied)
		}
	}
	if n := strings.Count(applied, "(server dry run)"); n != len(objs) {
		t.Errorf("kubectl applied %d objects, the chart rendered %d:\n%s", n, len(objs), applied)
	}
}

// kubectl runs the pinned kubectl against one kubeconfig.
type kubectl struct{ kubeconfig string }

func kubectlFor(kubeconfig string) *kubectl { return &kubectl{kubeconfig: kubeconfig} }

// ok runs kubectl with args, fails the test unless it exits 0, and
// returns its standard output.
func (k *kubectl) ok(t *testing.T, args ...string) string {
	t.Helper()
	stdout, _ := k.okWarned(t, args...)
	return stdout
}

// okWarned is ok, and also returns standard error.
func (k *kubectl) okWarned(t *testing.T, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectlTool.Path(t), append([]string{"--kubeconfig", k.kubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubectl %s: %v\n--- stdout ---\n%s--- stderr ---\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), stderr.String()
}
