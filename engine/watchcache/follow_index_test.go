package watchcache

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
)

// TestFollowAsFullIndex: through 150 random reloads of 30 CRDs in three
// groups (created, deleted, installing, a version no longer served, a
// schema changed), the index of served resources that AfterSwap keeps
// from the resources each reload changed equals an index of every
// resource of the new registry, and names every cache key whose
// resources changed.
func TestFollowAsFullIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 11))
	l := schemas.NewLoader(t.TempDir(), builtin.Schemas())
	c := NewServed(nil, engine.Keys{}.Resource)
	crds := map[int]followCRD{}
	var prev *schemas.Registry
	incremental := 0
	for step := range 150 {
		i := rng.IntN(30)
		if _, ok := crds[i]; ok && rng.IntN(4) == 0 {
			delete(crds, i)
		} else {
			crds[i] = followCRD{i: i, installing: rng.IntN(3) == 0, unserved: rng.IntN(4) == 0, field: rng.IntN(3)}
		}
		next, _, err := l.LoadWith(followDecls(crds)...)
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if prev != nil && prev == c.last.reg {
			incremental++
		}
		oldAt := maps.Clone(c.servedByKey(prev))
		got, was := c.follow(prev, next)
		want := (&Served{key: c.key}).servedByKey(next)
		if !sameIndex(got, want) {
			t.Fatalf("step %d: the index kept from the changes differs from a full index of the registry", step)
		}
		for _, keys := range []map[string][]*schemas.Resource{oldAt, want} {
			for key := range keys {
				olds, listed := was[key]
				if !slices.Equal(oldAt[key], want[key]) && !listed {
					t.Fatalf("step %d: the resources of %s changed but it is not among the keys to follow", step, key)
				}
				if listed && !slices.Equal(olds, oldAt[key]) {
					t.Fatalf("step %d: what the last registry served of %s is not kept", step, key)
				}
			}
		}
		c.last, prev = servedIndex{reg: next, at: got}, next
	}
	if incremental < 100 {
		t.Errorf("%d of 150 reloads followed from the last index: the walk tests too little", incremental)
	}
}

func sameIndex(a, b map[string][]*schemas.Resource) bool {
	if len(a) != len(b) {
		return false
	}
	for key, res := range a {
		if !slices.Equal(res, b[key]) {
			return false
		}
	}
	return true
}

// followCRD is CRD things<i> of group g<i%3>.example.com, and what a step
// made of it.
type followCRD struct {
	i                    int
	installing, unserved bool
	field                int
}

func followDecls(crds map[int]followCRD) []*schemas.Declarations {
	var out []*schemas.Declarations
	for i := range 30 {
		k, ok := crds[i]
		if !ok {
			continue
		}
		group := fmt.Sprintf("g%d.example.com", i%3)
		doc := fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"things%[1]d.%[2]s"},
"spec":{"group":"%[2]s","scope":"Namespaced","names":{"plural":"things%[1]d","kind":"Thing%[1]d"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"f%[3]d":{"type":"string"}}}}},
{"name":"v2","served":%[4]t,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","properties":{"f%[3]d":{"type":"string"}}}}}]}}`,
			i, group, k.field, !k.unserved)
		d := schemas.ParseCRD(fmt.Sprintf("crd:things%d.%s", i, group), []byte(doc))
		if k.installing {
			d.MarkInstalling()
		}
		out = append(out, d)
	}
	return out
}
