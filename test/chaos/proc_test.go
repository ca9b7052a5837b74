package chaos

import (
	"fmt"
	"os/exec"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/specd-io/specd/internal/testproc"
)

// proc is a child process the test starts, kills with SIGKILL and starts
// again with the same arguments.
type proc struct {
	name string
	dir  string // working directory
	args []string

	mu  sync.Mutex
	cur *testproc.Proc // the run since the last start
}

func (p *proc) start(t *testing.T) {
	t.Helper()
	cmd := exec.Command(p.args[0], p.args[1:]...)
	cmd.Dir = p.dir
	cur, err := testproc.Start(cmd)
	if err != nil {
		t.Fatalf("start %s: %v", p.name, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cur = cur
}

func (p *proc) run() *testproc.Proc {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cur
}

// kill9 ends the process with SIGKILL and waits for it.
func (p *proc) kill9() { p.run().Kill() }

// await waits for a line of the process's output that re matches and
// returns the match.
func (p *proc) await(re *regexp.Regexp, timeout time.Duration) ([]string, error) {
	m, err := p.run().Await(re, timeout)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.name, err)
	}
	return m, nil
}

// output is what the process has written since it last started.
func (p *proc) output() string { return p.run().Out().String() }
