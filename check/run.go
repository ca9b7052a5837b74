package check

import (
	"context"

	"github.com/specd-io/specd/converters"
	"github.com/specd-io/specd/schemas"
)

// Run is one `specd check` of a schema directory.
type Run struct {
	// Schemas is the directory checked; Previous, when not empty, the one
	// it replaces, compared with it.
	Schemas, Previous string
	// Seed and Rounds drive the fuzz: Rounds random objects per resource
	// version (none for 0).
	Seed   int64
	Rounds int
	// Stored, when not nil, tells in which versions objects are stored,
	// for the comparison with Previous.
	Stored StoredObjects
	// Progress, when not nil, is told how far the fuzz is.
	Progress func(done, total int)
}

// Report loads the schemas (and the previous ones), fuzzes every resource
// version and compares the two directories.
func (r Run) Report(ctx context.Context) *Report {
	report := &Report{}
	next := report.LoadSchemas(r.Schemas)
	var previous *schemas.Registry
	if r.Previous != "" {
		previous = report.LoadSchemas(r.Previous)
	}
	if next == nil {
		return report
	}
	roundTrip := roundTrips(next, r.Schemas, report)
	if r.Rounds > 0 && roundTrip != nil {
		fuzz := Fuzz{Seed: r.Seed, Rounds: r.Rounds, RoundTrip: roundTrip, Progress: r.Progress}
		fuzz.Run(ctx, next, report)
	}
	if previous != nil {
		report.Findings = append(report.Findings, CompareStored(ctx, previous, next, r.Stored)...)
	}
	return report
}

// roundTrips compiles the conversion rules of reg and returns the round
// trip the fuzz applies to every generated object. Problems in the rules
// are added to report, and then there is no round trip (nil).
func roundTrips(reg *schemas.Registry, dir string, report *Report) RoundTrip {
	set, err := converters.NewSet(reg, converters.DeclaredRules)
	if err != nil {
		report.AddLoadError(err, dir)
		return nil
	}
	return set.RoundTrip
}
