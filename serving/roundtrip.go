package serving

import (
	"context"

	"github.com/specd-io/specd/check"
	"github.com/specd-io/specd/schemas"
)

// LoadRounds is how many random objects of each version specd round-trips
// through its conversion rules before it serves them: enough to catch a
// rule that loses a field, bounded so start-up stays fast. specd check
// runs more (--rounds).
const LoadRounds = 16

// proveRoundTrips refuses a world whose conversion rules lose or change
// data in a version, naming the version's file and the path, as a broken
// schema file is refused. The versions of a resource of one version are
// not generated: nothing converts them.
func proveRoundTrips(ctx context.Context, reg *schemas.Registry, conv roundTripper) error {
	report := &check.Report{}
	check.Fuzz{Seed: 1, Rounds: LoadRounds, RoundTrip: conv.RoundTrip, Only: conv.Converts}.Run(ctx, reg, report)
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

// roundTripper is what proveRoundTrips needs of the conversion rules
// (converters.Set).
type roundTripper interface {
	RoundTrip(rv *schemas.ResourceVersion, obj []byte) (path string, err error)
	Converts(rv *schemas.ResourceVersion) bool
}
