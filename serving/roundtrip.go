package serving

import (
	"context"

	"github.com/specd-io/specd/check"
	"github.com/specd-io/specd/schemas"
)

// loadRounds is how many random objects of each version specd round-trips
// through its conversion rules before it serves them: enough to catch a
// rule that loses a field, bounded so start-up stays fast. specd check
// runs more (--rounds).
const loadRounds = 16

// proveRoundTrips refuses a world whose conversion rules lose or change
// data in a version, naming the version's file and the path, as a broken
// schema file is refused.
func proveRoundTrips(ctx context.Context, reg *schemas.Registry, roundTrip check.RoundTrip) error {
	report := &check.Report{}
	check.Fuzz{Seed: 1, Rounds: loadRounds, RoundTrip: roundTrip}.Run(ctx, reg, report)
	var problems []schemas.Problem
	for _, f := range report.Findings {
		if f.Severity == check.Error {
			problems = append(problems, schemas.Problem{File: f.File, Pointer: f.Pointer, Message: f.Message})
		}
	}
	if len(problems) > 0 {
		return &schemas.LoadError{Problems: problems}
	}
	return ctx.Err()
}
