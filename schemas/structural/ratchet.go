package structural

// pairing is the old value paired with the value the validator is at, on
// an update. paired is false where there is none: a create, a value new
// in the update, or an item of a list that the schema cannot pair by key
// (an atomic list or a set, whose items have no identity), as kube's
// ratcheting correlates them.
type pairing struct {
	old    any
	paired bool
}

// unchanged reports whether x equals the old value paired with it.
func (p pairing) unchanged(x any) bool { return p.paired && jsonEqual(x, p.old) }

// key pairs the property or map entry k with the old one, and returns
// the pairing to restore after it.
func (p *pairing) key(k string) pairing {
	prev := *p
	m, isMap := prev.old.(map[string]any)
	old, has := m[k]
	*p = pairing{old: old, paired: prev.paired && isMap && has}
	return prev
}

// item pairs the item x of the list of node n with the old item of the
// same keys, in a map list; and returns the pairing to restore after it.
func (p *pairing) item(n *node, x any) pairing {
	prev := *p
	*p = pairing{}
	olds, isList := prev.old.([]any)
	if !prev.paired || !isList || n.listType != "map" {
		return prev
	}
	for _, o := range olds {
		if sameKeys(n.listMapKeys, x, o) {
			*p = pairing{old: o, paired: true}
			break
		}
	}
	return prev
}

// sameKeys reports whether the map list items a and b have the same
// values of keys (a key absent from both is the same).
func sameKeys(keys []string, a, b any) bool {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if !aok || !bok {
		return false
	}
	for _, k := range keys {
		av, ain := am[k]
		bv, bin := bm[k]
		if ain != bin || !jsonEqual(av, bv) {
			return false
		}
	}
	return true
}
