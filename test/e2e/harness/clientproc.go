package harness

import (
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specd-io/specd/internal/testproc"
)

// clientStopTimeout bounds a client program's exit after SIGTERM.
const clientStopTimeout = 20 * time.Second

// ClientProc is a client program the test runs beside specd (the test
// controller), with its output kept for the test to read.
type ClientProc struct {
	*testproc.Proc
	Name string
	Out  *SyncBuffer
}

// StartClient starts bin with args; when the test ends it is stopped with
// SIGTERM (killed if it lingers), and its output logged if the test failed.
func StartClient(t *testing.T, name, bin string, args ...string) *ClientProc {
	t.Helper()
	proc, err := testproc.Start(exec.Command(bin, args...))
	if err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	p := &ClientProc{Proc: proc, Name: name, Out: proc.Out()}
	t.Cleanup(func() {
		p.Stop(t)
		if t.Failed() {
			t.Logf("--- %s output ---\n%s", name, p.Out.String())
		}
	})
	return p
}

// Stop sends SIGTERM and waits for the exit, killing it after
// clientStopTimeout; it reports whether the program exited by itself.
func (p *ClientProc) Stop(t *testing.T) bool {
	t.Helper()
	if p.Exited() {
		return true
	}
	if !p.Proc.Stop(syscall.SIGTERM, clientStopTimeout) {
		t.Errorf("%s did not exit within %s of SIGTERM; killed", p.Name, clientStopTimeout)
		return false
	}
	return true
}

// Logged reports whether the output has a line matching re.
func (p *ClientProc) Logged(re *regexp.Regexp) bool {
	for line := range strings.SplitSeq(p.Out.String(), "\n") {
		if re.MatchString(line) {
			return true
		}
	}
	return false
}
