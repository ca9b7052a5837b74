package aggregated

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specd-io/specd/test/testhelm"
)

// chartRelease is the release of the chart the tests install: named
// specd in specd-system, its objects are named specd (the chart's full
// name), as the ExternalName Service and docs/aggregation.md name them.
const chartRelease = "specd"

// hostObjectsArgs are the arguments of `helm template` that
// docs/aggregation.md gives for specd's objects in the host: its
// ServiceAccount and host RBAC, with the chart's defaults (specd
// registers the APIServices).
var hostObjectsArgs = []string{"template", chartRelease, "charts/specd", "--namespace", specdNamespace, "--set", "mode=aggregated",
	"--show-only", "templates/serviceaccount.yaml", "--show-only", "templates/aggregated-rbac.yaml"}

// chartValues add what a cluster would set: specd's groups (the roles
// aggregated into view, edit and admin) and the ServiceMonitor, which
// the chart gives a scraper ServiceAccount of its own, with the CA that
// tls.source specd leaves to the user.
var chartValues = map[string]any{
	"aggregated": map[string]any{"groups": []any{
		map[string]any{"name": "shop.example.com", "versions": []any{"v1", "v2beta1"}},
		map[string]any{"name": "library.example.com", "versions": []any{"v1", "v1beta1"}},
		map[string]any{"name": "fleet.example.com", "versions": []any{"v1"}},
	}},
	"metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": true, "tlsConfig": map[string]any{
		"serverName": specdService + "." + specdNamespace + ".svc",
		"ca":         map[string]any{"secret": map[string]any{"name": "specd-ca", "key": "ca.crt"}}}}},
}

// serviceMonitorCRD is the Prometheus operator's, from the CRD corpus.
const serviceMonitorCRD = "testdata/crds/prometheus-operator/crds/monitoring.coreos.com_servicemonitors.yaml"

// installChart creates specd's namespace and applies what the chart
// renders for the host: docs/aggregation.md's command, with chartValues
// and the ServiceMonitor's template, whose CRD the host is given first.
func installChart(t testing.TB, h *host) {
	t.Helper()
	checkDocumented(t)
	kubectl(t, h.admin, "create", "namespace", specdNamespace)
	kubectl(t, h.admin, "create", "-f", serviceMonitorCRD) // kubectl runs in the repository root
	kubectl(t, h.admin, "wait", "--for=condition=Established", "--timeout=60s", "crd/servicemonitors.monitoring.coreos.com")
	args := append(absChart(hostObjectsArgs), "--show-only", "templates/servicemonitor.yaml", "-f", testhelm.ValuesFile(t, chartValues))
	out, err := testhelm.Run(t, binaries.helm, args...)
	if err != nil {
		t.Fatal(err)
	}
	applyYAML(t, h, out)
}

// absChart is args with the chart's path from this package.
func absChart(args []string) []string {
	out := append([]string(nil), args...)
	for i, a := range out {
		if a == "charts/specd" {
			out[i] = filepath.Join(repoRoot, a)
		}
	}
	return out
}

// checkDocumented: docs/aggregation.md gives the command the test runs.
func checkDocumented(t testing.TB) {
	t.Helper()
	md, err := os.ReadFile(filepath.Join(repoRoot, docsPage))
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(strings.ReplaceAll(string(md), "\\\n", " ")), " ")
	if want := "helm " + strings.Join(hostObjectsArgs, " "); !strings.Contains(doc, want) {
		t.Fatalf("%s does not give the command that applies specd's host objects:\n%s", docsPage, want)
	}
}
