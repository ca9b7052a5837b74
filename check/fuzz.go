package check

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/specd-io/specd/schemas"
)

// RoundTrip converts obj, an object of rv's version, to the storage
// version and back, and returns the path of the first field that was lost
// or changed (with an error saying how), or "" and nil when it came back
// exactly.
type RoundTrip func(rv *schemas.ResourceVersion, obj []byte) (path string, err error)

// Fuzz is the round-trip proof: random valid objects of every version.
type Fuzz struct {
	Seed   int64
	Rounds int // objects per resource version
	// RoundTrip, when set, is applied to every object generated.
	RoundTrip RoundTrip
	// Only, when set, picks the versions to generate objects of; the
	// others are skipped.
	Only func(*schemas.ResourceVersion) bool
	// Progress, when set, is told after each resource version.
	Progress func(done, total int)
}

// Run generates f.Rounds objects of every resource version of reg and
// round-trips them. A version no valid object could be generated for is
// a warning finding (its schema may be unsatisfiable); data lost in a
// round trip is an error finding naming the path. It stops early when ctx
// ends.
func (f Fuzz) Run(ctx context.Context, reg *schemas.Registry, r *Report) {
	var all []*schemas.ResourceVersion
	for _, g := range reg.Groups() {
		for _, res := range g.Resources {
			for _, rv := range res.Versions {
				if f.Only == nil || f.Only(rv) {
					all = append(all, rv)
				}
			}
		}
	}
	for i, rv := range all {
		if ctx.Err() != nil {
			return
		}
		f.version(rv, r)
		if f.Progress != nil {
			f.Progress(i+1, len(all))
		}
	}
}

func (f Fuzz) version(rv *schemas.ResourceVersion, r *Report) {
	gen := Generator{Seed: f.Seed}
	for round := range f.Rounds {
		obj, err := gen.Object(rv, round)
		if err != nil {
			r.Findings = append(r.Findings, versionFinding(rv, Warning, "generate",
				fmt.Sprintf("no valid object generated (seed %d, round %d): %v", f.Seed, round, err)))
			return
		}
		if f.RoundTrip == nil {
			continue
		}
		data, err := json.Marshal(obj)
		if err != nil {
			continue
		}
		path, err := f.RoundTrip(rv, data)
		if err == nil && path == "" {
			continue
		}
		msg := fmt.Sprintf("conversion fails (seed %d, round %d): %v", f.Seed, round, err)
		if path != "" {
			msg = fmt.Sprintf("%s is lost or changed by a round trip through the storage version (seed %d, round %d): %v", path, f.Seed, round, err)
		}
		fd := versionFinding(rv, Error, "round-trip", msg)
		fd.Field = path
		r.Findings = append(r.Findings, fd)
		return
	}
}

func versionFinding(rv *schemas.ResourceVersion, sev Severity, rule, msg string) Finding {
	return Finding{
		Severity: sev, Rule: rule, File: rv.File, Pointer: rv.Pointer,
		Resource: rv.Resource.GroupResource(), Version: rv.Version, Message: msg,
	}
}
