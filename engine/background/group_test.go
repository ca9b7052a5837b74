package background_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specd-io/specd/engine/background"
)

// job counts its runs and records whether one is under way.
type job struct {
	runs    atomic.Int32
	running atomic.Bool
	started chan struct{}
}

func newJob() *job { return &job{started: make(chan struct{}, 10)} }

func (j *job) Run(ctx context.Context) {
	j.runs.Add(1)
	j.running.Store(true)
	j.started <- struct{}{}
	<-ctx.Done()
	time.Sleep(10 * time.Millisecond) // some work to finish on the way out
	j.running.Store(false)
}

// quick returns at once, before ctx ends.
type quick struct{ runs atomic.Int32 }

func (q *quick) Run(context.Context) { q.runs.Add(1) }

func waitStarted(t *testing.T, jobs ...*job) {
	t.Helper()
	for _, j := range jobs {
		select {
		case <-j.started:
		case <-time.After(5 * time.Second):
			t.Fatal("a job did not start")
		}
	}
}

// TestRunUntilContextEnds: Run runs every job, blocks until its context
// ends, and returns only after every job has returned; a later Run runs
// them again, as a leader that leads again would.
func TestRunUntilContextEnds(t *testing.T) {
	a, b, q := newJob(), newJob(), &quick{}
	g := background.New(a, b, q)
	for term := int32(1); term <= 2; term++ {
		ctx, cancel := context.WithCancel(context.Background())
		returned := make(chan struct{})
		go func() { g.Run(ctx); close(returned) }()
		waitStarted(t, a, b)
		select {
		case <-returned:
			t.Fatal("Run returned before its context ended")
		case <-time.After(50 * time.Millisecond):
		}
		cancel()
		<-returned
		if a.running.Load() || b.running.Load() {
			t.Fatal("Run returned while a job was still running")
		}
		if a.runs.Load() != term || b.runs.Load() != term || q.runs.Load() != term {
			t.Fatalf("term %d: runs %d, %d, %d", term, a.runs.Load(), b.runs.Load(), q.runs.Load())
		}
	}
}

// TestStartStop: stop ends the jobs Start runs and waits for them.
func TestStartStop(t *testing.T) {
	a := newJob()
	stop := background.New(a).Start(context.Background())
	waitStarted(t, a)
	stop()
	if a.running.Load() {
		t.Fatal("stop returned while the job was still running")
	}
}
