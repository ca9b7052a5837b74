package crd

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// TestUsedNamesAsAWalk: the names the index finds in use are those a walk
// of the group's other CRDs finds, as kube's naming controller walks
// them, with the Controller's accepted names over the watch's, through
// random creates, renames and deletes of CRDs in three groups, and
// names accepted ahead of the watch.
func TestUsedNamesAsAWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	a := New(Config{Registry: func() *schemas.Registry { return nil }})
	overlay := newAcceptedCache()
	seen := map[string]*object{}
	for step := range 3000 {
		o := randomCRD(rng)
		switch rng.IntN(4) {
		case 0:
			a.Apply(engine.WatchEvent{Type: storage.EventDeleted, Object: encodeCRD(t, o)})
			overlay.forget(o.Meta.Name)
			delete(seen, o.Meta.Name)
		case 1:
			overlay.set(o.Spec.Group, o.Meta.Name, randomNames(rng))
		default:
			a.Apply(engine.WatchEvent{Type: storage.EventModified, Object: encodeCRD(t, o)})
			seen[o.Meta.Name] = o
		}
		probe := randomCRD(rng)
		for _, ov := range []*acceptedCache{nil, overlay} {
			got, want := a.usedNames(probe, ov), walkUsedNames(probe, seen, ov)
			if !maps.Equal(got.resources, want.resources) || !maps.Equal(got.kinds, want.kinds) {
				t.Fatalf("step %d, overlay %v: used names of %+v: got %v, want %v", step, ov != nil, probe.Spec, got, want)
			}
		}
	}
}

// walkUsedNames is what kube's naming controller finds: the names of the
// other CRDs of o's group, those of overlay for the CRDs it holds, kept
// to the names o asks for.
func walkUsedNames(o *object, crds map[string]*object, overlay *acceptedCache) usedNames {
	all := usedNames{resources: map[string]bool{}, kinds: map[string]bool{}}
	for name, other := range crds {
		if name == o.Meta.Name || other.Spec.Group != o.Spec.Group {
			continue
		}
		n := other.Status.AcceptedNames
		if overlay.has(name) {
			n = overlay.names[name].names
		}
		eachName(n, func(kind bool, s string) { all.set(kind, s) })
	}
	u := usedNames{resources: map[string]bool{}, kinds: map[string]bool{}}
	eachName(o.Spec.Names, func(kind bool, s string) {
		if kind && all.kinds[s] || !kind && all.resources[s] {
			u.set(kind, s)
		}
	})
	return u
}

func (u usedNames) set(kind bool, s string) {
	if kind {
		u.kinds[s] = true
	} else {
		u.resources[s] = true
	}
}

// randomCRD is one of 24 CRDs, in one of three groups by its number,
// asking for and accepted with names drawn from a few.
func randomCRD(rng *rand.Rand) *object {
	i := rng.IntN(24)
	o := &object{}
	o.Meta.Name = fmt.Sprintf("crd%d", i)
	o.Spec.Group = fmt.Sprintf("g%d.example.com", i%3)
	o.Spec.Names = randomNames(rng)
	if rng.IntN(3) > 0 {
		o.Status.AcceptedNames = randomNames(rng)
	}
	return o
}

func randomNames(rng *rand.Rand) Names {
	pick := func(prefix string) string { return fmt.Sprintf("%s%d", prefix, rng.IntN(5)) }
	n := Names{Plural: pick("p"), Singular: pick("p"), Kind: pick("K")}
	for range rng.IntN(3) {
		n.ShortNames = append(n.ShortNames, pick("p"))
	}
	if rng.IntN(2) == 0 {
		n.ListKind = pick("K")
	}
	return n
}

func encodeCRD(t *testing.T, o *object) []byte {
	t.Helper()
	data, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"name": o.Meta.Name},
		"spec":     map[string]any{"group": o.Spec.Group, "names": o.Spec.Names},
		"status":   map[string]any{"acceptedNames": o.Status.AcceptedNames},
	})
	if err != nil {
		t.Fatal(err)
	}
	return data
}
