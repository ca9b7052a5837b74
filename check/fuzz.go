package check

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"

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
// ends. Versions are tried on every core at once, and their findings
// reported in reg's order; Progress is called from one goroutine at a
// time.
func (f Fuzz) Run(ctx context.Context, reg *schemas.Registry, r *Report) {
	all := f.versions(reg)
	found := make([][]Finding, len(all))
	next := make(chan int)
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(all)) {
		wg.Go(func() {
			for i := range next {
				found[i] = f.version(all[i])
				mu.Lock()
				done++
				if f.Progress != nil {
					f.Progress(done, len(all))
				}
				mu.Unlock()
			}
		})
	}
	for i := range all {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	for _, fs := range found {
		r.Findings = append(r.Findings, fs...)
	}
}

// versions are the resource versions of reg that f tries, in order.
func (f Fuzz) versions(reg *schemas.Registry) []*schemas.ResourceVersion {
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
	return all
}

// version generates and round-trips f.Rounds objects of rv, and returns
// its finding, if any.
func (f Fuzz) version(rv *schemas.ResourceVersion) []Finding {
	gen := Generator{Seed: f.Seed, patterns: patterns{}}
	for round := range f.Rounds {
		obj, err := gen.Object(rv, round)
		if err != nil {
			return []Finding{versionFinding(rv, Warning, "generate",
				fmt.Sprintf("no valid object generated (seed %d, round %d): %v", f.Seed, round, err))}
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
		return []Finding{fd}
	}
	return nil
}

func versionFinding(rv *schemas.ResourceVersion, sev Severity, rule, msg string) Finding {
	return Finding{
		Severity: sev, Rule: rule, File: rv.File, Pointer: rv.Pointer,
		Resource: rv.Resource.GroupResource(), Version: rv.Version, Message: msg,
	}
}
