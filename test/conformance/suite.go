package conformance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Suite is one run of kube's e2e test binary against a specd.
type Suite struct {
	// E2E is the binary (bin/e2e.test); Kubeconfig reaches specd.
	E2E, Kubeconfig string
	// Kubectl is the kubectl the tests that shell out to one run;
	// "kubectl" on PATH when empty.
	Kubectl string
	// ReportDir receives junit_01.xml (Report).
	ReportDir string
	// Focus and Skip are ginkgo's regular expressions over the tests'
	// full names; a test runs when it matches one of Focus and none of
	// Skip.
	Focus, Skip []string
	// Timeout bounds the whole run, as ginkgo's --timeout.
	Timeout time.Duration
	// Out receives the binary's output.
	Out io.Writer
}

// Args are the e2e binary's flags for the run. The framework's own
// flags skip what needs nodes or pods: the wait for schedulable nodes
// (--allowed-not-ready-nodes=-1), their count (--num-nodes: any value
// but the default, which counts them), and the wait for each test
// namespace's default ServiceAccount and kube-root-ca.crt ConfigMap,
// which kube-controller-manager would create
// (--e2e-verify-service-account=false). A failed test's namespace is not
// dumped: the dump lists pods, which specd does not serve.
func (s Suite) Args() []string {
	args := []string{
		"--kubeconfig=" + s.Kubeconfig,
		"--provider=skeleton",
		"--allowed-not-ready-nodes=-1",
		"--num-nodes=1",
		"--e2e-verify-service-account=false",
		"--dump-logs-on-failure=false",
		"--disable-log-dump",
		"--report-dir=" + s.ReportDir,
		"--ginkgo.focus=" + anyOf(s.Focus),
		"--ginkgo.no-color",
		"--ginkgo.timeout=" + s.Timeout.String(),
	}
	if s.Kubectl != "" {
		args = append(args, "--kubectl-path="+s.Kubectl)
	}
	if len(s.Skip) > 0 {
		args = append(args, "--ginkgo.skip="+anyOf(s.Skip))
	}
	return args
}

// anyOf is one regular expression matching what any of res matches.
func anyOf(res []string) string {
	return "(" + strings.Join(res, ")|(") + ")"
}

// Report is the JUnit report the run writes.
func (s Suite) Report() string { return filepath.Join(s.ReportDir, "junit_01.xml") }

// Run runs the binary until it ends or ctx does. A test that fails is not
// an error here: its outcome is in the report. An error is a run that
// wrote no report.
func (s Suite) Run(ctx context.Context) error {
	if s.Timeout <= 0 {
		return errors.New("conformance: a suite needs a timeout")
	}
	cmd := exec.CommandContext(ctx, s.E2E, s.Args()...)
	// The binary reads a few files relative to its own directory.
	cmd.Dir = filepath.Dir(s.E2E)
	cmd.Stdout, cmd.Stderr = s.Out, s.Out
	cmd.WaitDelay = time.Minute
	runErr := cmd.Run()
	var exit *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exit) {
		return fmt.Errorf("conformance: run %s: %w", s.E2E, runErr)
	}
	if _, err := ReadJUnit(s.Report()); err != nil {
		return fmt.Errorf("conformance: %s ended (%v) without a report: %w", s.E2E, runErr, err)
	}
	return nil
}

// Exactly is a Focus that matches only the test named name. Ginkgo
// matches a focus against the suite's description, the test's name and
// its labels (" [sig-api-machinery, Conformance]"); the report names the
// test alone.
func Exactly(name string) string {
	return "(^| )" + regexp.QuoteMeta(name) + `( \[[^]]*\])?$`
}
