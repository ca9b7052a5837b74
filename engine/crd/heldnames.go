package crd

import "slices"

// heldNames is, for each name a CRD holds in its group, the CRDs that
// hold it, nearly always one. kube's naming controller walks every CRD
// of the group to gather the names in use, once per CRD it names; kept
// as the CRDs change, the names a CRD asks for are looked up instead,
// and naming the 5,000th CRD of a group costs what naming the fifth
// does.
type heldNames map[heldName][]string

// heldName is a name in one of the two spaces of a group that kube's
// naming controller checks apart: plurals, singulars and short names,
// and kinds and list kinds.
type heldName struct {
	group string
	kind  bool
	name  string
}

// eachName calls f with every name of n, in its space.
func eachName(n Names, f func(kind bool, name string)) {
	f(false, n.Plural)
	f(false, n.Singular)
	for _, s := range n.ShortNames {
		f(false, s)
	}
	f(true, n.Kind)
	f(true, listKind(n))
}

// add records that the CRD crd of group holds the names n.
func (h heldNames) add(group, crd string, n Names) {
	eachName(n, func(kind bool, name string) {
		k := heldName{group, kind, name}
		if !slices.Contains(h[k], crd) {
			h[k] = append(h[k], crd)
		}
	})
}

// remove forgets that the CRD crd of group holds the names n.
func (h heldNames) remove(group, crd string, n Names) {
	eachName(n, func(kind bool, name string) {
		k := heldName{group, kind, name}
		if h[k] = slices.DeleteFunc(h[k], func(c string) bool { return c == crd }); len(h[k]) == 0 {
			delete(h, k)
		}
	})
}

// acceptedCache is the names the Controller accepted, by CRD, until the
// watch shows them: kube's naming controller keeps such a mutation cache
// so that two CRDs of a group never get the same name. held indexes
// them as the API indexes the names it has seen.
type acceptedCache struct {
	names map[string]groupNames
	held  heldNames
}

// groupNames are a CRD's names and its group, under which they are held.
type groupNames struct {
	group string
	names Names
}

func newAcceptedCache() *acceptedCache {
	return &acceptedCache{names: map[string]groupNames{}, held: heldNames{}}
}

// set records that crd of group was accepted with n.
func (c *acceptedCache) set(group, crd string, n Names) {
	c.forget(crd)
	c.names[crd] = groupNames{group, n}
	c.held.add(group, crd, n)
}

// forget drops what was recorded of crd.
func (c *acceptedCache) forget(crd string) {
	if old, ok := c.names[crd]; ok {
		c.held.remove(old.group, crd, old.names)
		delete(c.names, crd)
	}
}

func (c *acceptedCache) has(crd string) bool {
	if c == nil {
		return false
	}
	_, ok := c.names[crd]
	return ok
}
