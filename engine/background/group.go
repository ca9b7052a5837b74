package background

import (
	"context"
	"sync"
	"time"
)

// Job is one piece of background work. Run works until ctx ends and
// returns soon after; it may be called again later (a replica that leads
// again), and must then take up the work where the stored state says.
type Job interface {
	Run(ctx context.Context)
}

// Group runs a fixed set of jobs together.
type Group struct {
	jobs []Job
}

// New returns a Group of jobs.
func New(jobs ...Job) *Group { return &Group{jobs: jobs} }

// Run runs every job until ctx ends, then waits for them all to return.
// A job that returns early is not started again until the next Run.
func (g *Group) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, j := range g.jobs {
		wg.Go(func() { j.Run(ctx) })
	}
	<-ctx.Done()
	wg.Wait()
}

// Start runs the jobs in the background (Run) until ctx ends or the
// returned stop is called; stop waits for every job to return.
func (g *Group) Start(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		g.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// JobFunc is a function that is a Job.
type JobFunc func(ctx context.Context)

// Run calls f.
func (f JobFunc) Run(ctx context.Context) { f(ctx) }

// Sleep waits d or until ctx ends.
func Sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
