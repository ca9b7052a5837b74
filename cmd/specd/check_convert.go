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
	return roundTripOf(set)
}

// roundTripOf is the round trip through set: an object of a spoke version
// goes to the storage version and back; an object of the storage version
// goes to every spoke version and back.
func roundTripOf(set *converters.Set) check.RoundTrip {
	return func(rv *schemas.ResourceVersion, obj []byte) (string, error) {
		res := rv.Resource
		if r := set.Rules(res.Group, res.Kind, rv.Version); r != nil {
			return r.RoundTrip(obj)
		}
		for _, spoke := range res.Versions {
			r := set.Rules(res.Group, res.Kind, spoke.Version)
			if r == nil {
				continue
			}
			if path, err := r.RoundTrip(obj); path != "" || err != nil {
				return path, err
			}
		}
		return "", nil
	}
}
