package converters

// The walks that keep aside what a version cannot hold need not enter a
// subtree that no rule touches when one side's subtree holds everything the
// other's does: walking an object of version X against the schema of X,
// a subtree can be skipped when X holds everything the other version holds
// there (what X does not hold, the other does not either, and it is kept
// aside by the other walk); walking against the target version's schema,
// when the target holds everything the source holds there.

// skipSet is the shape nodes of both versions whose subtree the walks skip.
type skipSet map[*shape]bool

// skippable pairs the spoke and hub schemas by path below the root and
// marks, in each, the subtrees no step touches where that side holds all
// the other side does.
func skippable(spoke, hub *shape, steps []*step) skipSet {
	set := skipSet{}
	var pair func(s, h *shape, p path)
	pair = func(s, h *shape, p path) {
		for k, sc := range s.props {
			hc, ok := h.props[k]
			if !ok {
				continue
			}
			q := p.child(k)
			if touched(q, steps) {
				pair(sc, hc, q)
				continue
			}
			if subset(hc, sc) {
				set[sc] = true
			}
			if subset(sc, hc) {
				set[hc] = true
			}
		}
	}
	pair(spoke, hub, nil)
	return set
}

func touched(p path, steps []*step) bool {
	for _, s := range steps {
		if overlap(p, s.from) || overlap(p, s.to) {
			return true
		}
	}
	return false
}

// subset reports whether every value that the walk against a keeps, the
// walk against b keeps too. It may answer false when unsure.
func subset(a, b *shape) bool {
	if b.fullyOpen() {
		return true
	}
	if a.open || a.embedded && !b.embedded {
		return false
	}
	for k, ac := range a.props {
		bc := b.child(k)
		if bc == nil && !b.open || bc != nil && !subset(ac, bc) {
			return false
		}
	}
	if a.additional != nil {
		if b.additional == nil || !subset(a.additional, b.additional) {
			return false
		}
		for k, bc := range b.props {
			if _, ok := a.props[k]; !ok && !subset(a.additional, bc) {
				return false
			}
		}
	}
	if b.items != nil && (a.items == nil || !subset(a.items, b.items)) {
		return false
	}
	return true
}

// fullyOpen: the walk keeps anything below.
func (sh *shape) fullyOpen() bool {
	return sh.open && sh.props == nil && sh.additional == nil && sh.items == nil
}
