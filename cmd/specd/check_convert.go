package main

import (
	"github.com/specd-io/specd/check"
	"github.com/specd-io/specd/converters"
	"github.com/specd-io/specd/schemas"
)

// roundTrips compiles the conversion rules of reg and returns the round
// trip the fuzz applies to every generated object. Problems in the rules
// are added to report, and then there is no round trip (nil).
func roundTrips(reg *schemas.Registry, dir string, report *check.Report) check.RoundTrip {
	set, err := converters.NewSet(reg, converters.DeclaredRules)
	if err != nil {
		report.AddLoadError(err, dir)
		return nil
	}
	return set.RoundTrip
}
