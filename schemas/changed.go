package schemas

// EachChanged calls f with each resource that old and next do not share:
// every resource of next that old does not hold, with old's resource of
// the same name (nil for none), then every resource of old whose name
// next no longer serves, with nil. A Loader builds again only the groups
// and kinds whose declarations changed (reuse.go), so a follower of
// reloads that looks at these, rather than at every resource, spends
// on a reload what changed, not what is served. Either registry may be
// nil.
func EachChanged(old, next *Registry, f func(old, next *Resource)) {
	for _, g := range next.groupList() {
		if og := old.Group(g.Name); og != g {
			for _, res := range g.Resources {
				if o := old.resourceOf(g.Name, res.Plural); o != res {
					f(o, res)
				}
			}
		}
	}
	for _, og := range old.groupList() {
		if g := next.Group(og.Name); g != og {
			for _, res := range og.Resources {
				if next.resourceOf(og.Name, res.Plural) == nil {
					f(res, nil)
				}
			}
		}
	}
}

// groupList is r's groups; none when r is nil.
func (r *Registry) groupList() []*Group {
	if r == nil {
		return nil
	}
	return r.groups
}

// resourceOf is the resource plural of group, as Resource finds it; nil
// when r is nil.
func (r *Registry) resourceOf(group, plural string) *Resource {
	if r == nil || r.indexes[group] == nil {
		return nil
	}
	return r.indexes[group].byPlural[plural]
}
