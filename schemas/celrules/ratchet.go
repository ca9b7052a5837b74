package celrules

import "k8s.io/apiserver/pkg/cel/common"

// ratchet follows the old object down the new one for ratcheting: a
// failed rule that does not use oldSelf is only a warning when its value
// did not change. current is the node's value paired with its old value,
// nil where the schema cannot pair them (the items of a list that is not
// a map list); parent is then the nearest ancestor that could be paired,
// whose equality decides instead.
type ratchet struct {
	current, parent *common.CorrelatedObject
}

// unchanged reports whether the value is equal to its old value, as
// far as the schema can tell.
func (r ratchet) unchanged() bool {
	if r.current != nil {
		return r.current.CachedDeepEqual()
	}
	return r.parent.CachedDeepEqual() // false for nil
}

// key is the ratchet of property or map entry k.
func (r ratchet) key(k string) ratchet {
	if r.current == nil {
		return r
	}
	if r.parent == nil && (k == "apiVersion" || k == "kind") {
		// Both objects were converted to the same version, so a change
		// of these cannot be seen.
		return ratchet{}
	}
	return ratchet{current: r.current.Key(k), parent: r.current}
}

// index is the ratchet of list item i.
func (r ratchet) index(i int) ratchet {
	if r.current == nil {
		return r
	}
	return ratchet{current: r.current.Index(i), parent: r.current}
}
