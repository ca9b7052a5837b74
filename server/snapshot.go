package server

import (
	"encoding/json"

	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/server/openapi"
)

// snapshot holds the documents derived from one registry snapshot
// (discovery, OpenAPI), encoded once and served as bytes until the registry
// is swapped.
type snapshot struct {
	reg *schemas.Registry

	legacy, legacyAggregated []byte            // /api
	apis, apisAggregated     []byte            // /apis
	groups                   map[string][]byte // /apis/G
	groupVersions            map[string][]byte // /apis/G/V and /api/V, keyed by apiVersion ("G/V", "V")

	openapi *openapi.Documents // built when first asked for
}

// snapshot returns the derived documents of the current registry.
func (s *Server) snapshot() *snapshot {
	reg := s.cfg.Registry()
	if c := s.cache.Load(); c != nil && c.reg == reg {
		return c
	}
	c := newSnapshot(reg, s.cfg.Extra, s.cfg.Store.Subresources)
	s.cache.Store(c)
	return c
}

func newSnapshot(reg *schemas.Registry, extras []ExtraGroup, subs subresourcesOf) *snapshot {
	c := &snapshot{
		reg:           reg,
		groups:        make(map[string][]byte),
		groupVersions: make(map[string][]byte),
	}
	core, named := servedGroups(reg)
	served := withoutExtras(named, extras)
	c.legacy = mustJSON(legacyVersions(core))
	c.legacyAggregated = mustJSON(aggregatedList(nonNil(core), nil, subs))
	c.apis = mustJSON(groupList(served, extras))
	c.apisAggregated = mustJSON(aggregatedList(served, extras, subs))
	for _, e := range extras {
		c.groups[e.Group] = mustJSON(e.apiGroup())
		c.groupVersions[e.Group+"/"+e.Version] = mustJSON(e.resourceList())
	}
	for _, g := range served {
		c.groups[g.Name] = mustJSON(apiGroup(g))
	}
	for _, g := range append(nonNil(core), served...) {
		for _, gv := range g.ServedVersions() {
			c.groupVersions[schemas.APIVersion(gv.Group, gv.Version)] = mustJSON(resourceList(gv, subs))
		}
	}
	c.openapi = openapi.New(reg, openapi.Verbs{Resource: resourceVerbs, Status: statusVerbs, Scale: scaleVerbs, StoreSubresources: subs})
	return c
}

// nonNil is g as a list: empty when g is nil.
func nonNil(g *schemas.Group) []*schemas.Group {
	if g == nil {
		return nil
	}
	return []*schemas.Group{g}
}

// mustJSON encodes documents built from plain types, which cannot fail.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("server: encoding a derived document: " + err.Error())
	}
	return b
}
