package structural

import "sort"

// pruner removes unknown fields and records their paths.
type pruner struct {
	p       walkPath
	removed []string
}

func (pr *pruner) record(k string) {
	pr.removed = append(pr.removed, pr.p.child(k, false))
}

// prune follows kube-apiserver's pruning algorithm: fields neither declared
// as properties nor covered by additionalProperties are deleted; below
// x-kubernetes-preserve-unknown-fields (keep) unknown fields stay, in the
// node and in its array items, and only declared fields are descended into;
// apiVersion, kind and metadata of embedded resources (and the root) are
// kept, metadata being reduced to ObjectMeta's fields.
func (pr *pruner) prune(x any, n *node, root, keep bool) {
	if n != nil && n.preserveUnknown {
		keep = true
	}
	if n == nil && keep {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		if n == nil {
			for k := range x {
				pr.record(k)
				delete(x, k)
			}
			return
		}
		if n.embedded && !root {
			pr.coerceEmbedded(x)
		}
		for k, v := range x {
			if (n.embedded || root) && isMetaField(k) {
				continue
			}
			if c := pr.pushChild(n, k); c != nil || n.anyAdditional {
				pr.prune(v, c, false, false)
				pr.p.pop()
				continue
			}
			if !keep {
				pr.record(k)
				delete(x, k)
			}
		}
	case []any:
		var items *node
		if n != nil {
			items = n.items
		}
		for i, v := range x {
			pr.p.pushIndex(i)
			pr.prune(v, items, false, keep)
			pr.p.pop()
		}
	}
}

// pushChild pushes key k and returns its schema. If the schema declares no
// such field it returns nil, having pushed k only for additionalProperties:
// true (whose values are pruned as having no schema, as kube does).
func (pr *pruner) pushChild(n *node, k string) *node {
	if c, ok := n.props[k]; ok {
		pr.p.pushKey(k)
		return c
	}
	if n.additional != nil || n.anyAdditional {
		pr.p.pushAddlKey(k)
	}
	return n.additional
}

func (s *Schema) prune(obj map[string]any) []string {
	pr := pruner{p: walkPath{segs: make([]seg, 0, 16)}}
	pr.prune(obj, s.root, true, false)
	sort.Strings(pr.removed)
	return pr.removed
}
