package schemas

import "strings"

// EachChanged calls f with each resource that old and next do not share,
// in no particular order: every resource of next that old does not hold,
// with old's resource of the same name (nil for none), and every
// resource of old whose name next no longer serves, with nil. A Loader
// builds again only the groups and kinds whose declarations changed
// (reuse.go), so a follower of reloads that looks at these, rather than
// at every resource, spends on a reload what changed, not what is
// served. Either registry may be nil.
func EachChanged(old, next *Registry, f func(old, next *Resource)) {
	for _, g := range next.groupList() {
		if og := old.Group(g.Name); og != g {
			eachChangedIn(old, next, g, og, f)
		}
	}
	for _, og := range old.groupList() {
		if next.Group(og.Name) == nil {
			for _, res := range og.Resources {
				f(res, nil)
			}
		}
	}
}

// eachChangedIn is EachChanged for the group g of next, og of old (nil
// when old has none).
func eachChangedIn(old, next *Registry, g, og *Group, f func(old, next *Resource)) {
	if og != nil && g.index != nil && og.index != nil {
		mergeChanged(og.Resources, g.Resources, f)
		return
	}
	for _, res := range g.Resources {
		if o := old.resourceOf(g.Name, res.Plural); o != res {
			f(o, res)
		}
	}
	if og == nil {
		return
	}
	for _, res := range og.Resources {
		if next.resourceOf(og.Name, res.Plural) == nil {
			f(res, nil)
		}
	}
}

// mergeChanged is eachChangedIn for two assembled groups, whose resources
// are sorted by plural: a group built again keeps most of its resources,
// the same pointers in the same order, so a walk of both lists in step
// compares pointers, and plurals only where the pointers differ.
func mergeChanged(olds, nexts []*Resource, f func(old, next *Resource)) {
	i, j := 0, 0
	for i < len(olds) && j < len(nexts) {
		o, n := olds[i], nexts[j]
		if o == n {
			i, j = i+1, j+1
			continue
		}
		switch c := strings.Compare(o.Plural, n.Plural); {
		case c == 0:
			f(o, n)
			i, j = i+1, j+1
		case c < 0:
			f(o, nil)
			i++
		default:
			f(nil, n)
			j++
		}
	}
	for _, o := range olds[i:] {
		f(o, nil)
	}
	for _, n := range nexts[j:] {
		f(nil, n)
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
	return r.indexes[group].byPlural.get(plural)
}
