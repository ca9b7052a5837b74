package operations

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/rest"

	"github.com/specd-io/specd/test/e2e/harness"
)

// metricsTokens are users of --token-auth-file: a scraper in kube's
// group system:monitoring, and a user without it.
const metricsTokens = `scraper-token,prometheus,2001,"system:monitoring"
other-token,other,2002
`

// TestRequestMetrics: a scraper in the group system:monitoring reads
// /metrics with no other grant, and finds kube-apiserver's request
// metrics, with kube's names and labels, for a request the test made; a
// user outside the group is refused.
// The in-flight gauge is kept by priority and fairness, or by the
// in-flight bounds when it is off: both are tried.
func TestRequestMetrics(t *testing.T) {
	t.Parallel()
	for name, args := range map[string][]string{
		"priority and fairness": nil,
		"in-flight bounds":      {"--enable-priority-and-fairness=false"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testRequestMetrics(t, args)
		})
	}
}

func testRequestMetrics(t *testing.T, args []string) {
	s := harness.StartSpecd(t, harness.SpecdOptions{Secure: true, Args: append([]string{
		"--token-auth-file", harness.WriteFile(t, t.TempDir(), "tokens.csv", metricsTokens)}, args...)})
	harness.NewKubectl(t, s).OK(t, "create", "-f", filepath.Join(harness.RepoRoot, "examples", "objects", "widget.yaml"))
	created := map[string]string{"verb": "POST", "dry_run": "", "group": "shop.example.com", "version": "v1",
		"resource": "widgets", "subresource": "", "scope": "resource", "component": "apiserver"}
	var families map[string]*dto.MetricFamily
	harness.Converge(t, "the scraper reads /metrics", func() (bool, string) {
		code, body := scrape(t, s, "scraper-token")
		if code != http.StatusOK {
			return false, fmt.Sprintf("HTTP %d: %s", code, body)
		}
		families = parseMetrics(t, body)
		// The in-flight gauge is set by a loop every second.
		return hasSeries(families["apiserver_current_inflight_requests"], map[string]string{"request_kind": "readOnly"}),
			"no apiserver_current_inflight_requests yet"
	})
	if n := counterOf(families["apiserver_request_total"], withLabels(created, "code", "201")); n < 1 {
		t.Errorf("apiserver_request_total%v = %v, want >= 1", created, n)
	}
	if n := histogramCount(families["apiserver_request_duration_seconds"], created); n < 1 {
		t.Errorf("apiserver_request_duration_seconds_count%v = %v, want >= 1", created, n)
	}
	for _, kind := range []string{"readOnly", "mutating"} {
		if !hasSeries(families["apiserver_current_inflight_requests"], map[string]string{"request_kind": kind}) {
			t.Errorf("no apiserver_current_inflight_requests{request_kind=%q}", kind)
		}
	}
	if code, body := scrape(t, s, "other-token"); code != http.StatusForbidden {
		t.Errorf("/metrics as a user outside system:monitoring: HTTP %d, want 403\n%s", code, body)
	}
}

// scrape GETs /metrics with a bearer token, as a Prometheus scraper does.
func scrape(t *testing.T, s *harness.Specd, token string) (int, string) {
	t.Helper()
	cfg := rest.AnonymousClientConfig(s.Rest)
	cfg.BearerToken = token
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func parseMetrics(t *testing.T, body string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("/metrics is not the Prometheus text format: %v", err)
	}
	return families
}

func withLabels(m map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// matches reports whether m has exactly the labels want.
func matches(m *dto.Metric, want map[string]string) bool {
	if len(m.GetLabel()) != len(want) {
		return false
	}
	for _, l := range m.GetLabel() {
		if v, ok := want[l.GetName()]; !ok || v != l.GetValue() {
			return false
		}
	}
	return true
}

func counterOf(f *dto.MetricFamily, want map[string]string) float64 {
	for _, m := range f.GetMetric() {
		if matches(m, want) {
			return m.GetCounter().GetValue()
		}
	}
	return 0
}

func histogramCount(f *dto.MetricFamily, want map[string]string) uint64 {
	for _, m := range f.GetMetric() {
		if matches(m, want) {
			return m.GetHistogram().GetSampleCount()
		}
	}
	return 0
}

func hasSeries(f *dto.MetricFamily, want map[string]string) bool {
	for _, m := range f.GetMetric() {
		if matches(m, want) {
			return true
		}
	}
	return false
}
