package e2e

import (
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// clientStopTimeout bounds a client program's exit after SIGTERM.
const clientStopTimeout = 20 * time.Second

// clientProc is a client program the test runs beside specd (the test
// controller), with its output kept for the test to read.
type clientProc struct {
	name   string
	cmd    *exec.Cmd
	out    *syncBuffer
	exited chan struct{}
	err    error
}

// startClient starts bin with args; when the test ends it is stopped with
// SIGTERM (killed if it lingers), and its output logged if the test failed.
func startClient(t *testing.T, name, bin string, args ...string) *clientProc {
	t.Helper()
	p := &clientProc{name: name, cmd: exec.Command(bin, args...), out: &syncBuffer{}, exited: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	dieWithTest(p.cmd)
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.Stop(t)
		if t.Failed() {
			t.Logf("--- %s output ---\n%s", name, p.out.String())
		}
	})
	return p
}

// Stop sends SIGTERM and waits for the exit, killing it after
// clientStopTimeout; it reports whether the program exited by itself.
func (p *clientProc) Stop(t *testing.T) bool {
	t.Helper()
	if p.Exited() {
		return true
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		return true
	case <-time.After(clientStopTimeout):
		p.Kill()
		t.Errorf("%s did not exit within %s of SIGTERM; killed", p.name, clientStopTimeout)
		return false
	}
}

// Kill ends the program with SIGKILL, as a crash would.
func (p *clientProc) Kill() {
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// Exited reports whether the program has ended.
func (p *clientProc) Exited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// Logged reports whether the output has a line matching re.
func (p *clientProc) Logged(re *regexp.Regexp) bool {
	for line := range strings.SplitSeq(p.out.String(), "\n") {
		if re.MatchString(line) {
			return true
		}
	}
	return false
}
