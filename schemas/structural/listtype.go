package structural

import "k8s.io/apimachinery/pkg/util/validation/field"

// listType checks the x-kubernetes-list-type invariants of a list: no
// duplicate items in a set, no two items with the same keys in a map.
func (v *validator) listType(n *node, a []any) {
	switch n.listType {
	case "set":
		for _, i := range duplicateIndices(a) {
			v.listErrs = append(v.listErrs, field.Duplicate(v.indexPath(i), a[i]))
		}
	case "map":
		v.listMap(n, a)
	}
}

func (v *validator) indexPath(i int) *field.Path {
	v.p.pushIndex(i)
	defer v.p.pop()
	return field.NewPath(v.p.fieldString())
}

type unspecifiedKey struct{}

func (v *validator) listMap(n *node, a []any) {
	for i, x := range a {
		if _, ok := x.(map[string]any); x != nil && !ok {
			v.listErrs = append(v.listErrs, field.Invalid(v.indexPath(i), x, "must be an object for an array of list-type map"))
			return
		}
	}
	if len(a) <= 1 {
		return
	}
	keys := make([]any, len(a))
	for i, x := range a {
		m, _ := x.(map[string]any)
		if len(n.listMapKeys) == 1 {
			k, ok := m[n.listMapKeys[0]]
			if !ok {
				keys[i] = unspecifiedKey{}
				continue
			}
			keys[i] = k
			continue
		}
		key := map[string]any{}
		for _, f := range n.listMapKeys {
			if k, ok := m[f]; ok {
				key[f] = k
			}
		}
		keys[i] = key
	}
	for _, i := range duplicateIndices(keys) {
		var shown any = keys[i]
		if len(n.listMapKeys) == 1 {
			if _, ok := keys[i].(unspecifiedKey); ok {
				shown = map[string]any{}
			} else {
				shown = map[string]any{n.listMapKeys[0]: keys[i]}
			}
		}
		v.listErrs = append(v.listErrs, field.Duplicate(v.indexPath(i), shown))
	}
}

// duplicateIndices returns the index of the second occurrence of each value
// that occurs more than once (scalars compared by Go equality, compound
// values by their JSON), as kube-apiserver does.
func duplicateIndices(a []any) []int {
	if len(a) <= 1 {
		return nil
	}
	scalars := make(map[any]int, len(a))
	compounds := map[string]int{}
	var out []int
	for i, x := range a {
		switch x.(type) {
		case map[string]any, []any:
			k := compoundKey(x)
			compounds[k]++
			if compounds[k] == 2 {
				out = append(out, i)
			}
		default:
			scalars[x]++
			if scalars[x] == 2 {
				out = append(out, i)
			}
		}
	}
	return out
}
