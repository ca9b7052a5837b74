package structural

import (
	"unsafe"

	"github.com/tidwall/gjson"
)

// markDefaults sets defaultBelow on every node that has a defaulted
// property, additional property or item below it, and reports whether n
// has one or is defaulted itself.
func markDefaults(n *node) bool {
	if n == nil {
		return false
	}
	below := false
	for _, k := range n.propNames {
		if markDefaults(n.props[k]) {
			below = true
		}
	}
	if markDefaults(n.additional) {
		below = true
	}
	if markDefaults(n.items) {
		below = true
	}
	n.defaultBelow = below
	return below || n.hasDefault
}

// HasDefaults reports whether the schema defaults any field, so that a
// read need not look at an object at all when it does not.
func (s *Schema) HasDefaults() bool { return s.root.defaultBelow }

// NeedsDefaults reports whether DefaultRead would set a field of the JSON
// object raw: a defaulted field is absent, or null where it may not be.
// It reads raw without decoding it, so that a read decodes only the
// objects written before a default was added to their schema.
func (s *Schema) NeedsDefaults(raw []byte) bool {
	if !s.root.defaultBelow {
		return false
	}
	if len(raw) == 0 {
		return false
	}
	// Not ParseBytes, which copies raw: nothing read here outlives the
	// call, and raw is not changed during it.
	return needsDefaults(gjson.Parse(unsafe.String(&raw[0], len(raw))), s.root, true)
}

// DefaultRead applies the schema's defaults in place, as kube-apiserver
// does to an object it reads from storage: unlike Default, it removes no
// null.
func (s *Schema) DefaultRead(obj map[string]any) {
	applyDefaults(obj, s.root, true)
}

// needsDefaults is NeedsDefaults below n, where v is.
func needsDefaults(v gjson.Result, n *node, root bool) bool {
	if n == nil || !n.defaultBelow {
		return false
	}
	switch {
	case v.IsObject():
		return objectNeedsDefaults(v, n, root)
	case v.IsArray():
		found := false
		v.ForEach(func(_, item gjson.Result) bool {
			found = valueNeedsDefault(item, n.items)
			return !found
		})
		return found
	}
	return false
}

// objectNeedsDefaults is needsDefaults for an object: every defaulted
// property must be present, and no value below may need one.
func objectNeedsDefaults(v gjson.Result, n *node, root bool) bool {
	found, present := false, 0
	v.ForEach(func(key, val gjson.Result) bool {
		k := key.Str
		if root && isMetaField(k) {
			return true
		}
		p, declared := n.props[k]
		if !declared {
			p = n.additional
		}
		if declared && p.hasDefault && !(val.Type == gjson.Null && !p.nullable) {
			present++
		}
		found = valueNeedsDefault(val, p)
		return !found
	})
	return found || present < defaultedProps(n, root)
}

// valueNeedsDefault reports whether the value v of schema n is a null n's
// default replaces, or holds a field that needs a default.
func valueNeedsDefault(v gjson.Result, n *node) bool {
	if n == nil {
		return false
	}
	if v.Type == gjson.Null && !n.nullable && n.hasDefault {
		return true
	}
	return needsDefaults(v, n, false)
}

// defaultedProps counts n's defaulted properties (not apiVersion, kind
// and metadata at the root, which defaults do not touch).
func defaultedProps(n *node, root bool) int {
	c := 0
	for _, k := range n.propNames {
		if n.props[k].hasDefault && !(root && isMetaField(k)) {
			c++
		}
	}
	return c
}
