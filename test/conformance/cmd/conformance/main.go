// Command conformance runs the focus of docs/conformance.md, kube's e2e
// tests against a specd it starts (`make conformance`), and turns a run's
// JUnit report into that page's table (`make conformance-table`).
//
//	conformance -e2e bin/e2e.test -specd bin/specd -report-dir bin/conformance
//	conformance -table-only -report-dir bin/conformance -doc docs/conformance.md
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/specd-io/specd/test/conformance"
)

type options struct {
	e2e, specd, kubectl, reportDir, doc, readme, notes, passing string
	timeout                                                     time.Duration
	tableOnly, all                                              bool
}

func main() {
	var o options
	flag.StringVar(&o.e2e, "e2e", "bin/e2e.test", "kube's e2e test binary")
	flag.StringVar(&o.specd, "specd", "bin/specd", "the specd binary")
	flag.StringVar(&o.kubectl, "kubectl", "bin/kubectl", "the kubectl the tests may run")
	flag.StringVar(&o.reportDir, "report-dir", "bin/conformance", "where the run's JUnit report and specd's log go")
	flag.StringVar(&o.doc, "doc", "", "a page to write the table into, between its markers (docs/conformance.md)")
	flag.StringVar(&o.readme, "readme", "", "a page whose counts (**P / A / T**) to write (README.md)")
	flag.StringVar(&o.passing, "passing", "", "a file to write the names of the tests that passed into (test/conformance/passing.txt)")
	flag.StringVar(&o.notes, "notes", "test/conformance/notes.txt", "the triage notes")
	flag.DurationVar(&o.timeout, "timeout", 30*time.Minute, "bound on the whole run")
	flag.BoolVar(&o.tableOnly, "table-only", false, "run nothing: make the table from the report in -report-dir")
	flag.BoolVar(&o.all, "all", false, "run the tests that -notes says are not applicable too (by default they are skipped)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	if !o.tableOnly {
		if err := runSuite(ctx, o); err != nil {
			return err
		}
	}
	return report(o)
}

// runSuite runs the focus against a new specd, whose data and log stay
// in the report directory.
func runSuite(ctx context.Context, o options) error {
	dir, err := filepath.Abs(o.reportDir)
	if err != nil {
		return err
	}
	if err := clearReportDir(dir); err != nil {
		return err
	}
	s, err := conformance.StartSpecd(ctx, o.specd, filepath.Join(dir, "specd"))
	if err != nil {
		return err
	}
	logPath := filepath.Join(dir, "e2e.log")
	log, err := os.Create(logPath)
	if err != nil {
		return errors.Join(err, s.Stop())
	}
	defer log.Close()
	fmt.Printf("specd serves at %s; kube's e2e tests run against it (output also in %s)\n", s.URL, logPath)
	su, err := suite(o, dir, s.Kubeconfig, io.MultiWriter(os.Stdout, log))
	if err != nil {
		return errors.Join(err, s.Stop())
	}
	runErr := su.Run(ctx)
	stopErr := s.Stop()
	if err := os.WriteFile(filepath.Join(dir, "specd.log"), []byte(s.Log()), 0o644); err != nil {
		return err
	}
	return errors.Join(runErr, stopErr)
}

// clearReportDir removes what a previous run wrote into dir, and
// nothing else: dir may be one the user keeps other files in.
func clearReportDir(dir string) error {
	for _, name := range []string{"junit_01.xml", "e2e.log", "specd.log", "specd"} {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// suite is the focus of docs/conformance.md, run by o's binaries. The
// tests that the notes say are not applicable are skipped unless o.all:
// they need what specd does not serve, and waiting for it to appear is
// most of a run's time.
func suite(o options, dir, kubeconfig string, out io.Writer) (conformance.Suite, error) {
	kubectl, _ := filepath.Abs(o.kubectl)
	e2e, _ := filepath.Abs(o.e2e)
	skip := conformance.Skip
	if !o.all {
		notes, err := conformance.ReadNotes(o.notes)
		if err != nil {
			return conformance.Suite{}, err
		}
		skip = append(slices.Clip(skip), conformance.NotApplicablePatterns(notes)...)
	}
	return conformance.Suite{E2E: e2e, Kubeconfig: kubeconfig, Kubectl: kubectl, ReportDir: dir,
		Focus: conformance.Focus, Skip: skip, Timeout: o.timeout, Out: out}, nil
}

// report prints the counts of the run in o.reportDir, and writes the
// table into o.doc. Tests that fail with no note are listed, and are an
// error: each failure is triaged in the notes.
func report(o options) error {
	results, err := conformance.ReadJUnit(filepath.Join(o.reportDir, "junit_01.xml"))
	if err != nil {
		return err
	}
	notes, err := conformance.ReadNotes(o.notes)
	if err != nil {
		return err
	}
	rows := conformance.Rows(conformance.InFocus(results), notes)
	counts := conformance.Count(rows)
	fmt.Printf("passes / applicable / total: %s\n", counts)
	if o.doc != "" {
		if err := writeTable(o.doc, rows, counts); err != nil {
			return err
		}
	}
	if o.readme != "" {
		if err := writeCounts(o.readme, counts); err != nil {
			return err
		}
	}
	if o.passing != "" {
		if err := writePassing(o.passing, rows); err != nil {
			return err
		}
	}
	if bad := conformance.Untriaged(rows); len(bad) > 0 {
		for _, r := range bad {
			fmt.Printf("untriaged: %s\n    %s\n", r.Name, r.Why)
		}
		return fmt.Errorf("%d tests fail with no note in %s", len(bad), o.notes)
	}
	return nil
}

// writeTable replaces the generated part of the page at path.
func writeTable(path string, rows []conformance.Row, counts conformance.Counts) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	generated := fmt.Sprintf("**%s** (passes / applicable / total)\n\n%s", counts, conformance.Markdown(rows))
	out, err := conformance.Replace(doc, generated)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, out, 0o644)
}

// writeCounts replaces the counts in the page at path.
func writeCounts(path string, counts conformance.Counts) error {
	page, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := conformance.ReplaceCounts(page, counts)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, out, 0o644)
}

// passingHeader starts passing.txt.
const passingHeader = `# The tests of the focus that pass against specd, one full name a line,
# written by ` + "`make conformance-table`" + ` from a run's report; CI runs them
# (make conformance-ci). Tests kube marks [Flaky] are left out: they fail at
# times on any cluster (conformance.Flaky).
`

// writePassing writes the names of the rows that pass into path, but
// those of [Flaky] tests, which CI must not depend on.
func writePassing(path string, rows []conformance.Row) error {
	var b strings.Builder
	b.WriteString(passingHeader)
	for _, r := range rows {
		if r.Verdict == conformance.Passes && !conformance.Flaky(r.Name) {
			b.WriteString(r.Name + "\n")
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
