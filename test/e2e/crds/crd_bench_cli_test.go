package crds

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/specd-io/specd/test/e2e/harness"
)

// benchCRDsReport is what this test reads of `specd bench --output json`.
type benchCRDsReport struct {
	ServerPID *int `json:"serverPID"`
	Phases    []struct {
		Name       string         `json:"name"`
		Ops        int            `json:"ops"`
		ErrorCount int            `json:"errorCount"`
		Errors     map[string]int `json:"errors"`
		Steps      []struct {
			Done       int      `json:"done"`
			MeanMs     float64  `json:"meanMs"`
			RSSBytes   *int64   `json:"rssBytes"`
			CPUPerOpMs *float64 `json:"cpuPerOpMs"`
		} `json:"steps"`
	} `json:"phases"`
}

// runBenchCRDs runs the real `specd bench` crds phase against s, as
// docs/performance.md gives it, and returns its report and exit code.
func runBenchCRDs(t *testing.T, s *harness.Specd, args ...string) (benchCRDsReport, int) {
	t.Helper()
	cmd := exec.CommandContext(harness.Context(t, harness.ClientTimeout*4), harness.Binaries.Specd,
		append([]string{"bench", "--kubeconfig", s.Kubeconfig, "--phases", "crds", "--output", "json"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("specd bench: %v\n%s", err, stderr.String())
	}
	var rep benchCRDsReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("specd bench: stdout is not a JSON report: %v\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	if len(rep.Phases) != 1 || rep.Phases[0].Name != "crds" {
		t.Fatalf("phases %+v, want crds alone", rep.Phases)
	}
	return rep, code
}

// TestBenchCRDsPhase runs `specd bench --phases crds` against specd over
// TLS: every CRD it reports is created, Established and served, the steps
// carry the server's RSS and CPU, and a second run of the same names
// fails with 409s and exit code 1.
func TestBenchCRDsPhase(t *testing.T) {
	s := harness.StartSpecd(t, harness.SpecdOptions{Schemas: t.TempDir(), Secure: true})
	rep, code := runBenchCRDs(t, s, "--crds", "12", "--crd-step", "5", "--crd-groups", "each")
	p := rep.Phases[0]
	if code != 0 || p.Ops != 12 || p.ErrorCount != 0 {
		t.Fatalf("exit %d, %d ops, errors %v; want 0, 12, none", code, p.Ops, p.Errors)
	}
	if rep.ServerPID == nil || *rep.ServerPID != s.Cmd.Process.Pid {
		t.Errorf("server pid %v, want specd's %d", rep.ServerPID, s.Cmd.Process.Pid)
	}
	var done []int
	for _, st := range p.Steps {
		done = append(done, st.Done)
		if st.MeanMs <= 0 || st.RSSBytes == nil || *st.RSSBytes <= 0 || st.CPUPerOpMs == nil || *st.CPUPerOpMs < 0 {
			t.Errorf("step %+v: want a mean, an RSS and a CPU per CRD", st)
		}
	}
	if fmt.Sprint(done) != "[5 10 12]" {
		t.Errorf("steps end at %v, want [5 10 12]", done)
	}
	checkBenchCRDsServed(t, s, 12)

	again, code := runBenchCRDs(t, s, "--crds", "3", "--crd-groups", "each")
	if code != 1 || again.Phases[0].Errors["409"] != 3 {
		t.Errorf("second run: exit %d, errors %v; want 1 and three 409s", code, again.Phases[0].Errors)
	}
}

// checkBenchCRDsServed checks that CRDs 0 to n-1 of the crds phase are
// Established and that their resources answer a list.
func checkBenchCRDsServed(t *testing.T, s *harness.Specd, n int) {
	t.Helper()
	ctx := harness.Context(t, harness.ClientTimeout)
	dyn, err := dynamic.NewForConfig(s.Rest)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		group := fmt.Sprintf("g%d.crds.bench.specd.io", i)
		plural := fmt.Sprintf("c%05ds", i)
		crd, err := dyn.Resource(crdGVR).Get(ctx, plural+"."+group, metav1.GetOptions{})
		if err != nil || !isEstablished(crd) {
			t.Errorf("CRD %s.%s: %v, established %v", plural, group, err, err == nil && isEstablished(crd))
			continue
		}
		gvr := crdGVR.GroupVersion().WithResource(plural)
		gvr.Group = group
		if _, err := dyn.Resource(gvr).Namespace("default").List(ctx, metav1.ListOptions{}); err != nil {
			t.Errorf("list %s: %v", gvr, err)
		}
	}
}
