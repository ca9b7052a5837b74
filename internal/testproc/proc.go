package testproc

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"time"
)

// Proc is one started child process.
type Proc struct {
	Cmd  *exec.Cmd
	out  *Buffer
	done chan struct{}
	err  error // cmd.Wait's answer, valid once done is closed
}

// Start starts cmd with its stdout and stderr in one Buffer, tied to the
// test process's life, and watches for its end.
func Start(cmd *exec.Cmd) (*Proc, error) {
	p := &Proc{Cmd: cmd, out: &Buffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	DieWithTest(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Out is everything the process has written so far.
func (p *Proc) Out() *Buffer { return p.out }

// Done is closed once the process has ended.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Err is how the process ended (nil for status 0); valid once Done is
// closed.
func (p *Proc) Err() error { return p.err }

// Exited reports whether the process has ended.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Kill ends the process with SIGKILL, as a crash would, and waits for it.
func (p *Proc) Kill() {
	_ = p.Cmd.Process.Kill()
	<-p.done
}

// Stop sends sig and waits up to timeout for the end, then kills the
// process; it reports whether the process ended by itself.
func (p *Proc) Stop(sig os.Signal, timeout time.Duration) bool {
	if err := p.Cmd.Process.Signal(sig); err != nil && !p.Exited() {
		p.Kill()
		return false
	}
	select {
	case <-p.done:
		return true
	case <-time.After(timeout):
		p.Kill()
		return false
	}
}

// Await waits until the process's output matches re and returns the
// match; it fails if the process ends first or timeout passes.
func (p *Proc) Await(re *regexp.Regexp, timeout time.Duration) ([]string, error) {
	deadline := time.Now().Add(timeout)
	for {
		if m := re.FindStringSubmatch(p.out.String()); m != nil {
			return m, nil
		}
		select {
		case <-p.done:
			return nil, fmt.Errorf("%s exited (%v):\n%s", p.Cmd.Path, p.err, p.out.String())
		default:
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s: no %q within %s:\n%s", p.Cmd.Path, re, timeout, p.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
