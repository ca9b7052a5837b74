package rbac

import (
	"context"
	"time"

	"github.com/specd-io/specd/engine/background"
)

// paceFactor is how many times the last pass's duration the Aggregator
// and the PolicyWriter's schema roles wait before the next pass. Their
// passes write roles that list every resource of the schemas, so one
// costs more the more CRDs are served; once per CRD, a burst of N CRDs
// cost O(N²). Spaced by paceFactor times their duration, a loop's passes
// take at most 1/(paceFactor+1) of its time, whatever N, and the roles
// lag a burst by up to paceFactor+1 passes (kube's aggregation
// controller is eventually consistent too). A pass's duration is mostly
// waiting (for etcd, for the CPU on a loaded machine) rather than
// computing, so its share of the CPU is smaller still; a larger factor
// saved little more CPU and made the roles lag seconds behind a burst.
const paceFactor = 3

// maxPace bounds the wait, so that a pass slowed by a stall of the
// storage rather than by its size does not hold the next one for long.
const maxPace = 5 * time.Second

// pacer spaces the passes of a loop that runs on changes: a change
// after a quiet spell is taken up after first, and a change during a
// burst once the last pass's cost has been waited paceFactor times. The
// zero value takes up a change at once.
type pacer struct {
	// first is how long a pass waits after the change that calls for
	// it, for the changes that come with it.
	first time.Duration
	// notBefore is when the next pass may start.
	notBefore time.Time
}

// wait waits until the next pass may start, or ctx ends.
func (p *pacer) wait(ctx context.Context) {
	background.Sleep(ctx, p.delay(time.Now()))
}

// delay is how long a pass asked for at now waits.
func (p *pacer) delay(now time.Time) time.Duration {
	return max(p.first, p.notBefore.Sub(now))
}

// done records a pass that ran from start to end. A pass that failed is
// not recorded: its retry is paced by the pass before it.
func (p *pacer) done(start, end time.Time) {
	p.notBefore = end.Add(min(paceFactor*end.Sub(start), maxPace))
}
