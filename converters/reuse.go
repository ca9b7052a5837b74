package converters

import (
	"slices"

	"github.com/specd-io/specd/schemas"
)

// groupRules are the compiled rules of one group's resources.
type groupRules struct {
	group *schemas.Group
	kinds map[string]*resourceRules
	// hubs are the spokes the group's resources add to Set.byHub.
	hubs []hubSpoke
}

type hubSpoke struct {
	key   [2]string // the hub's apiVersion and kind
	rules *Rules
}

// NewSetFrom is NewSet with DeclaredRules, taking from prev (nil, or a Set
// NewSetFrom made) the rules of each group that reg holds as prev's
// registry held it: the same *schemas.Group, which a schemas.Loader hands
// again only when nothing it was built from changed, and which is never
// changed once built. A reload that adds one CRD beside a thousand of
// other groups compiles the rules of its group alone.
func NewSetFrom(reg *schemas.Registry, prev *Set) (*Set, error) {
	if prev == nil {
		prev = &Set{}
	}
	return newSet(reg, DeclaredRules, prev)
}

// reusable returns the rules s compiled for g, nil if it did not (s is
// nil, not of DeclaredRules, or compiled another group of that name). A
// group with a resource stored with another is compiled again: its hub
// is in the other group.
func (s *Set) reusable(g *schemas.Group) *groupRules {
	if s == nil || !s.declared {
		return nil
	}
	gr := s.groups[g.Name]
	if gr == nil || gr.group != g {
		return nil
	}
	if slices.ContainsFunc(g.Resources, func(res *schemas.Resource) bool { return res.StoredWith != nil }) {
		return nil
	}
	return gr
}

// kindsOf are the rules s compiled for the resources of the group name,
// nil when there are none that a later Set may reuse.
func (s *Set) kindsOf(name string) map[string]*resourceRules {
	if s == nil || !s.declared || s.groups[name] == nil {
		return nil
	}
	return s.groups[name].kinds
}

// reusable tells whether rr, of a group compiled before, holds res's
// rules: it was compiled for res itself, which a schemas.Loader hands
// again only when its declarations did not change, and res is not
// stored with another resource, whose hub may have changed.
func (rr *resourceRules) reusable(res *schemas.Resource) bool {
	return rr != nil && rr.res == res && res.StoredWith == nil
}

// addHubs adds the spokes of rr, res's rules compiled before, to gr's
// hubs, as compileResource does.
func (gr *groupRules) addHubs(rr *resourceRules, res *schemas.Resource) {
	for _, rv := range res.Versions {
		if r := rr.spokes[rv.Version]; r != nil {
			gr.hubs = append(gr.hubs, hubSpoke{key: [2]string{rr.hub, res.Kind}, rules: r})
		}
	}
}
