package background

import (
	"context"
	"time"
)

// paceFactor is how many times the last pass's duration a Pacer waits
// before the next pass. The RBAC Aggregator and schema roles, and the
// status.specd.io objects, are rebuilt from everything the schemas
// serve, so one pass costs more the more CRDs are served; once per CRD,
// a burst of N CRDs cost O(N²). Spaced by paceFactor times their
// duration, a loop's passes take at most 1/(paceFactor+1) of its time,
// whatever N, and what they write lags a burst by up to paceFactor+1
// passes. A pass's duration is mostly waiting (for etcd, for the CPU on a
// loaded machine) rather than computing, so its share of the CPU is
// smaller still; a larger factor saved little more CPU and made the RBAC
// roles lag seconds behind a burst.
const paceFactor = 3

// maxPace bounds the wait, so that a pass slowed by a stall of the
// storage rather than by its size does not hold the next one for long.
const maxPace = 5 * time.Second

// Pacer spaces the passes of a loop that runs on changes: a change after
// a quiet spell is taken up after First, and a change during a burst
// once the last pass's cost has been waited paceFactor times, and at
// least Gap. The zero value takes up a change at once. A Pacer belongs to
// one loop.
type Pacer struct {
	// First is how long a pass waits after the change that calls for
	// it, for the changes that come with it.
	First time.Duration
	// Gap is the least time from the end of a pass to the start of the
	// next: for a loop whose passes are cheap but come with every
	// change of a burst.
	Gap time.Duration
	// notBefore is when the next pass may start.
	notBefore time.Time
}

// Wait waits until the next pass may start, or ctx ends.
func (p *Pacer) Wait(ctx context.Context) {
	Sleep(ctx, p.delay(time.Now()))
}

// delay is how long a pass asked for at now waits.
func (p *Pacer) delay(now time.Time) time.Duration {
	return max(p.First, p.notBefore.Sub(now))
}

// Done records a pass that ran from start to end. A pass that failed is
// not recorded: its retry is paced by the pass before it.
func (p *Pacer) Done(start, end time.Time) {
	p.notBefore = end.Add(max(p.Gap, min(paceFactor*end.Sub(start), maxPace)))
}
