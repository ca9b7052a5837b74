package schemas

import (
	"maps"
	"math/rand/v2"
	"testing"
)

// TestLayeredAsMaps: a chain of 2,000 versions of a layered map, each
// made from the last with a few random sets and deletes, answers every
// look-up as a plain map copied for each version would, and every
// earlier version still answers as it did when it was made.
func TestLayeredAsMaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	vals := make([]*int, 300)
	for i := range vals {
		vals[i] = new(int)
	}
	type version struct {
		l    layered[int, *int]
		want map[int]*int
	}
	first := version{l: newLayered[int, *int](0), want: map[int]*int{}}
	for k := range 200 {
		first.l.set(k, vals[k])
		first.want[k] = vals[k]
	}
	versions := []version{first}
	for range 2000 {
		last := versions[len(versions)-1]
		v := version{l: last.l.next(), want: maps.Clone(last.want)}
		for range 1 + rng.IntN(3) {
			k := rng.IntN(300)
			if rng.IntN(3) == 0 {
				v.l.set(k, nil)
				delete(v.want, k)
			} else {
				v.l.set(k, vals[rng.IntN(300)])
				v.want[k] = v.l.get(k)
			}
		}
		versions = append(versions, v)
	}
	for i, v := range versions {
		for k := range 300 {
			if got := v.l.get(k); got != v.want[k] {
				t.Fatalf("version %d, key %d: got %p, want %p", i, k, got, v.want[k])
			}
		}
	}
}
