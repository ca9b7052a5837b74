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
