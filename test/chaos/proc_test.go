package chaos

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"sync"
	"testing"
	"time"
)

// proc is a child process the test starts, kills with SIGKILL and starts
// again with the same arguments.
type proc struct {
	name string
	dir  string // working directory
	args []string

	mu     sync.Mutex
	cmd    *exec.Cmd
	out    *syncBuffer
	exited chan struct{}
}

func (p *proc) start(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.out = &syncBuffer{}
	p.cmd = exec.Command(p.args[0], p.args[1:]...)
	p.cmd.Dir, p.cmd.Stdout, p.cmd.Stderr = p.dir, p.out, p.out
	dieWithTest(p.cmd)
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", p.name, err)
	}
	exited, cmd := make(chan struct{}), p.cmd
	p.exited = exited
	go func() { _ = cmd.Wait(); close(exited) }()
}

// kill9 ends the process with SIGKILL and waits for it.
func (p *proc) kill9() {
	p.mu.Lock()
	cmd, exited := p.cmd, p.exited
	p.mu.Unlock()
	_ = cmd.Process.Kill()
	<-exited
}

// await waits for a line of the process's output that re matches and
// returns the match.
func (p *proc) await(re *regexp.Regexp, timeout time.Duration) ([]string, error) {
	p.mu.Lock()
	out, exited := p.out, p.exited
	p.mu.Unlock()
	deadline := time.Now().Add(timeout)
	for {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			return m, nil
		}
		select {
		case <-exited:
			return nil, fmt.Errorf("%s exited:\n%s", p.name, out.String())
		default:
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s: no %q within %s:\n%s", p.name, re, timeout, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// output is what the process has written since it last started.
func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
