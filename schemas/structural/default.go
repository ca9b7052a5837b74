package structural

// pruneNulls removes null values of fields that are neither nullable nor
// defaulted, as kube-apiserver does before defaulting, so that a null
// counts as absent (and a required field left null is reported missing).
func pruneNulls(x any, n *node, root bool) {
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			if root && isMetaField(k) {
				continue
			}
			c := n.child(k)
			if v == nil && c != nil && !c.nullable && !c.hasDefault {
				delete(x, k)
				continue
			}
			pruneNulls(v, c, false)
		}
	case []any:
		var items *node
		if n != nil {
			items = n.items
		}
		for _, v := range x {
			pruneNulls(v, items, false)
		}
	}
}

func nonNullableNull(x any, n *node) bool {
	return x == nil && n != nil && !n.nullable
}

// applyDefaults sets the default of every absent (or non-nullable null)
// property, then recurses into properties, additionalProperties and items,
// in kube-apiserver's order, so defaults inside a defaulted value apply too.
func applyDefaults(x any, n *node, root bool) {
	if n == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for _, k := range n.propNames {
			p := n.props[k]
			if !p.hasDefault || (root && isMetaField(k)) {
				continue
			}
			if v, found := x[k]; !found || nonNullableNull(v, p) {
				x[k] = deepCopy(p.def)
			}
		}
		for k, v := range x {
			if root && isMetaField(k) {
				continue
			}
			if p, ok := n.props[k]; ok {
				applyDefaults(v, p, false)
			} else if n.additional != nil {
				if nonNullableNull(v, n.additional) {
					v = deepCopy(n.additional.def)
					x[k] = v
				}
				applyDefaults(v, n.additional, false)
			}
		}
	case []any:
		if n.items == nil {
			return
		}
		for i, v := range x {
			if nonNullableNull(v, n.items) {
				v = deepCopy(n.items.def)
				x[i] = v
			}
			applyDefaults(v, n.items, false)
		}
	}
}

// deepCopy copies a decoded JSON value.
func deepCopy(x any) any {
	switch x := x.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, v := range x {
			m[k] = deepCopy(v)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, v := range x {
			a[i] = deepCopy(v)
		}
		return a
	default:
		return x
	}
}
