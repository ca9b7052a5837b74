package aggregated

import (
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specd-io/specd/internal/testpki"
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
	"aggregated": map[string]any{"groups": chartGroups},
	"metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": true, "tlsConfig": map[string]any{
		"serverName": specdService + "." + specdNamespace + ".svc",
		"ca":         map[string]any{"secret": map[string]any{"name": "specd-ca", "key": "ca.crt"}}}}},
}

// chartGroups are the group versions of examples/schemas.
var chartGroups = []any{
	map[string]any{"name": "shop.example.com", "versions": []any{"v1", "v2beta1"}},
	map[string]any{"name": "library.example.com", "versions": []any{"v1", "v1beta1"}},
	map[string]any{"name": "fleet.example.com", "versions": []any{"v1"}},
}

// serviceMonitorCRD is the Prometheus operator's, from the CRD corpus.
const serviceMonitorCRD = "testdata/crds/prometheus-operator/crds/monitoring.coreos.com_servicemonitors.yaml"

// installChart creates specd's namespace and applies what the chart
// renders for the host: docs/aggregation.md's command, with chartValues
// (and more, which override them) and the ServiceMonitor's template,
// whose CRD the host is given first.
func installChart(t testing.TB, h *host, more map[string]any) {
	t.Helper()
	checkDocumented(t)
	kubectl(t, h.admin, "create", "namespace", specdNamespace)
	kubectl(t, h.admin, "create", "-f", serviceMonitorCRD) // kubectl runs in the repository root
	kubectl(t, h.admin, "wait", "--for=condition=Established", "--timeout=60s", "crd/servicemonitors.monitoring.coreos.com")
	args := append(absChart(hostObjectsArgs), "--show-only", "templates/servicemonitor.yaml", "-f", testhelm.ValuesFile(t, chartValues), "-f", testhelm.ValuesFile(t, more))
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

// TestChartAPIServices: with aggregated.registerAPIServices false, the
// APIServices the chart renders (tls.source secret, its CA given as
// tls.caBundle) route the host's requests to specd, which serves that
// Secret's certificate and may not write APIServices itself.
func TestChartAPIServices(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Kubernetes control plane")
	}
	h := startHost(t)
	ca := testpki.NewCA(t, "specd-serving-ca")
	crt, key := servingFiles(t, h, ca)
	values := map[string]any{
		"tls":        map[string]any{"source": "secret", "secret": map[string]any{"name": "specd-serving"}, "caBundle": string(ca.PEM())},
		"aggregated": map[string]any{"registerAPIServices": false, "groups": chartGroups},
	}
	installChart(t, h, values)
	sa := "system:serviceaccount:" + specdNamespace + ":" + chartRelease
	if out, _, _ := tryKubectl(h.admin, "auth", "can-i", "create", "apiservices", "--as", sa); strings.TrimSpace(out) != "no" {
		t.Fatalf("%s may create APIServices (%q) while the chart renders them", sa, out)
	}
	s := startSpecd(t, h, []string{"--tls-cert-file", crt, "--tls-private-key-file", key})
	port := s.url[strings.LastIndex(s.url, ":")+1:]
	out, err := testhelm.Run(t, binaries.helm, "template", chartRelease, filepath.Join(repoRoot, "charts/specd"), "--namespace", specdNamespace,
		"--show-only", "templates/apiservices.yaml", "-f", testhelm.ValuesFile(t, values), "--set", "mode=aggregated,service.port="+port)
	if err != nil {
		t.Fatal(err)
	}
	applyYAML(t, h, out)
	for _, name := range []string{"v1.shop.example.com", "v2beta1.shop.example.com", "v1.library.example.com", "v1beta1.library.example.com", "v1.fleet.example.com"} {
		awaitAvailable(t, h, name)
	}
	kubectl(t, h.admin, "create", "-f", "examples/objects/widget.yaml")
	if got := kubectl(t, h.admin, "get", "widget", "small", "-o", "jsonpath={.spec.color}"); got != "blue" {
		t.Errorf("widget small through the chart's APIServices: color %q, want blue", got)
	}
}

// servingFiles writes specd's serving certificate for the Service's
// name, of ca, and returns its files.
func servingFiles(t *testing.T, h *host, ca *testpki.CA) (crt, key string) {
	t.Helper()
	cert, k := ca.Leaf(t, &x509.Certificate{DNSNames: []string{specdService + "." + specdNamespace + ".svc"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	h.pki.write(t, "specd-serving.crt", testpki.CertPEM(cert))
	h.pki.write(t, "specd-serving.key", testpki.KeyPEM(t, k))
	return h.pki.path("specd-serving.crt"), h.pki.path("specd-serving.key")
}
