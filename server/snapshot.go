package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/server/openapi"
)

// snapshot holds the documents derived from one registry snapshot
// (discovery, OpenAPI), encoded once and served as bytes until the registry
// is swapped.
type snapshot struct {
	reg *schemas.Registry

	legacy, legacyAggregated *document            // /api
	apis, apisAggregated     *document            // /apis
	groups                   map[string]*document // /apis/G
	groupVersions            map[string]*document // /apis/G/V and /api/V, keyed by apiVersion ("G/V", "V")

	openapi *openapi.Documents // built when first asked for

	// installing are reg's resources whose CRDs were not Established
	// when it was loaded (establishedSince).
	installing []*schemas.Resource
}

// snapshot returns the derived documents of the current registry, or of
// a later one that serves the CRDs Established since (establishedSince).
func (s *Server) snapshot(ctx context.Context) *snapshot {
	c := s.snapshotOf(s.cfg.Registry())
	if reg := s.establishedSince(ctx, c); reg != nil {
		c = s.snapshotOf(reg)
	}
	return c
}

func (s *Server) snapshotOf(reg *schemas.Registry) *snapshot {
	if c := s.cache.Load(); c != nil && c.reg == reg {
		return c
	}
	c := newSnapshot(reg, s.cfg.Extra, s.cfg.Store.Subresources)
	s.cache.Store(c)
	return c
}

// establishedSince is the registry that serves the resources of c whose
// CRDs storage now says are Established, nil when there is none: a
// client that saw a CRD Established finds it in discovery and the
// OpenAPI documents, though this replica's reload may not have served it
// yet. It reads storage only while a CRD is being installed.
func (s *Server) establishedSince(ctx context.Context, c *snapshot) *schemas.Registry {
	if s.cfg.Installed == nil {
		return nil
	}
	var out *schemas.Registry
	for _, res := range c.installing {
		if out != nil && out.Resource(res.GroupResource()).Served() {
			continue
		}
		if reg := s.cfg.Installed(ctx, res); reg != nil {
			out = reg
		}
	}
	return out
}

func newSnapshot(reg *schemas.Registry, extras []ExtraGroup, subs subresourcesOf) *snapshot {
	c := &snapshot{
		reg:           reg,
		groups:        make(map[string]*document),
		groupVersions: make(map[string]*document),
	}
	core, named := servedGroups(reg)
	served := withoutExtras(named, extras)
	c.legacy = mustDocument(legacyVersions(core))
	c.legacyAggregated = mustDocument(aggregatedList(nonNil(core), nil, subs))
	c.apis = mustDocument(groupList(served, extras))
	c.apisAggregated = mustDocument(aggregatedList(served, extras, subs))
	for _, e := range extras {
		c.groups[e.Group] = mustDocument(e.apiGroup())
		c.groupVersions[e.Group+"/"+e.Version] = mustDocument(e.resourceList())
	}
	for _, g := range served {
		c.groups[g.Name] = mustDocument(apiGroup(g))
	}
	for _, g := range append(nonNil(core), served...) {
		for _, gv := range g.ServedVersions() {
			c.groupVersions[schemas.APIVersion(gv.Group, gv.Version)] = mustDocument(resourceList(gv, subs))
		}
	}
	for _, res := range reg.Resources() {
		if res.Installing {
			c.installing = append(c.installing, res)
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

// document is a discovery document, encoded, with its ETag: the hash
// of its bytes, by which a client that has it (kube's aggregator polls
// every minute) learns with 304 Not Modified that it has not changed.
type document struct {
	body []byte
	etag string
}

// mustDocument encodes v as a document.
func mustDocument(v any) *document {
	b := mustJSON(v)
	sum := sha256.Sum256(b)
	return &document{body: b, etag: strconv.Quote(hex.EncodeToString(sum[:]))}
}

// mustJSON encodes documents built from plain types, which cannot fail.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("server: encoding a derived document: " + err.Error())
	}
	return b
}
