package schemas

import "maps"

// ForgetAssembly makes l's next load assemble every group anew, as Load
// does, for tests that compare it with a load reusing groups.
func (l *Loader) ForgetAssembly() { l.groups = nil }

// SaveAssembly and RestoreAssembly keep the groups l may reuse across a
// load that must not change them.
func SaveAssembly(l *Loader) map[string]*builtGroup { return l.groups }

func RestoreAssembly(l *Loader, groups map[string]*builtGroup) { l.groups = groups }

// FlattenIndexes gives each group index of reg its entries in one map, so
// that reflect.DeepEqual compares what the indexes hold, not how a
// version shares them (layered).
func FlattenIndexes(reg *Registry) {
	for name, idx := range reg.indexes {
		reg.indexes[name] = idx.flat()
	}
	for _, g := range reg.groups {
		if g.index != nil {
			g.index = g.index.flat()
		}
	}
}

func (idx *groupIndex) flat() *groupIndex {
	return &groupIndex{byPlural: idx.byPlural.flat(), byVersion: idx.byVersion.flat()}
}

func (l *layered[K, V]) flat() layered[K, V] {
	n := layered[K, V]{base: maps.Clone(l.base), ownBase: true}
	for k, v := range l.changes {
		n.set(k, v)
	}
	n.ownBase = false
	return n
}
