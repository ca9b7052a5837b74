package aggregated

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/specd-io/specd/internal/testproc"
)

// proc is a child process: its output goes to a file of the test's
// directory as well as to a buffer the test reads, so that a failure can
// show what the process said.
type proc struct {
	name string
	dir  string
	args []string
	cur  *testproc.Proc
}

// start starts p, and stops it when the test ends.
func (p *proc) start(t testing.TB) {
	t.Helper()
	cmd := exec.Command(p.args[0], p.args[1:]...)
	cmd.Dir = p.dir
	cur, err := testproc.Start(cmd)
	if err != nil {
		t.Fatalf("start %s: %v", p.name, err)
	}
	p.cur = cur
	t.Cleanup(func() {
		cur.Stop(syscall.SIGTERM, 10*time.Second)
		if t.Failed() {
			logFile := filepath.Join(os.TempDir(), "specd-aggregated-"+p.name+".log")
			_ = os.WriteFile(logFile, []byte(cur.Out().String()), 0o600)
			t.Logf("%s's output: %s", p.name, logFile)
		}
	})
}

// await waits for a line of p's output that re matches.
func (p *proc) await(t testing.TB, re *regexp.Regexp, timeout time.Duration) []string {
	t.Helper()
	m, err := p.cur.Await(re, timeout)
	if err != nil {
		t.Fatalf("%s: %v\n%s", p.name, err, tail(p.cur.Out().String()))
	}
	return m
}

// kill ends p with SIGKILL, as a crash would.
func (p *proc) kill() { p.cur.Kill() }

// tail is the end of a long output.
func tail(s string) string {
	const n = 4000
	if len(s) > n {
		return fmt.Sprintf("...%s", s[len(s)-n:])
	}
	return s
}
