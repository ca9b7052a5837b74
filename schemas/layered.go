package schemas

import "maps"

// layered is a map that the index of a group built again shares with the
// index it was made from: a change goes into a small map of this
// version's own over a base that no version writes once shared. A group
// of thousands of CRDs was built again with a copy of both its maps for
// each CRD created; now a version copies only its changes, and folds
// them into a copy of the base once they outnumber its square root, so
// a version costs about that root, and a look-up two map reads at most.
// V is a pointer: nil is absent. A version is not changed once next was
// called on it.
type layered[K comparable, V comparable] struct {
	base    map[K]V
	changes map[K]V // a nil V deletes the base's
	// ownBase is set while no other version shares base: a change
	// writes it directly.
	ownBase bool
}

func newLayered[K comparable, V comparable](size int) layered[K, V] {
	return layered[K, V]{base: make(map[K]V, size), ownBase: true}
}

// get is k's value, nil when none.
func (l *layered[K, V]) get(k K) V {
	if v, ok := l.changes[k]; ok {
		return v
	}
	return l.base[k]
}

// set sets k to v; nil deletes it.
func (l *layered[K, V]) set(k K, v V) {
	var zero V
	switch {
	case l.ownBase && v == zero:
		delete(l.base, k)
	case l.ownBase:
		l.base[k] = v
	default:
		if l.changes == nil {
			l.changes = map[K]V{}
		}
		l.changes[k] = v
	}
}

// next returns a version to change that shares l's base, or that has a
// base of its own with l's changes folded in.
func (l *layered[K, V]) next() layered[K, V] {
	if len(l.changes)*len(l.changes) <= len(l.base) {
		return layered[K, V]{base: l.base, changes: maps.Clone(l.changes)}
	}
	n := layered[K, V]{base: maps.Clone(l.base), ownBase: true}
	for k, v := range l.changes {
		n.set(k, v)
	}
	return n
}
