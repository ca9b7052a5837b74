package docs

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/specd-io/specd/test/e2e/harness"
)

// metricFamilyPrefixes are families docs/metrics.md describes by prefix
// rather than one by one: kube's priority-and-fairness series and the
// Prometheus client's Go and process collectors.
var metricFamilyPrefixes = []string{"apiserver_flowcontrol_", "go_", "process_"}

// TestMetricsReference: every metric family a specd exports, after writes
// that reach a plugin, a reconciler and the watch cache, is named on
// docs/metrics.md (in backquotes), or falls under one of the prefixes the
// page describes as a whole.
func TestMetricsReference(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile(filepath.Join(harness.RepoRoot, "docs", "metrics.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, s)
	k.OK(t, "create", "-f", filepath.Join(harness.RepoRoot, "examples", "objects"))
	k.OK(t, "get", "widgets,ships,fleets")
	resp, err := s.Client.Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	families := metricFamilies(t, bufio.NewScanner(resp.Body))
	if len(families) < 20 {
		t.Fatalf("only %d metric families on /metrics: %q", len(families), families)
	}
	for _, f := range families {
		if slices.ContainsFunc(metricFamilyPrefixes, func(p string) bool { return strings.HasPrefix(f, p) }) {
			continue
		}
		if !strings.Contains(string(page), "`"+f+"`") {
			t.Errorf("docs/metrics.md does not list %s", f)
		}
	}
}

var typeLine = regexp.MustCompile(`^# TYPE (\S+) `)

// metricFamilies returns the names of the families of a Prometheus text
// exposition.
func metricFamilies(t *testing.T, lines *bufio.Scanner) []string {
	t.Helper()
	var out []string
	for lines.Scan() {
		if m := typeLine.FindStringSubmatch(lines.Text()); m != nil {
			out = append(out, m[1])
		}
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
