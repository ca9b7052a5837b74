package schemas

import (
	"slices"
	"sort"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/version"
)

// A Loader assembles the groups of each load again only where their
// declarations changed, and within a group only the kinds whose
// declarations changed: a CRD created beside a thousand others builds
// its own Resource, and the new Registry holds the other kinds, and the
// other groups, as the previous load built them. The result is what a
// full assembly gives (TestReuseEqualsFullAssembly): a kind's Resource
// reads nothing but its own declarations, but for the links of kinds
// stored with another resource (linkStorage), and the group's checks
// across kinds are of names alone (checkGroupNames). So a group with a
// kind stored with another, or one whose assembly found a problem, is
// never kept; and a group whose new or changed kinds find a problem, or
// claim a name a kept kind claims, is assembled whole, which reports it.

// groupInput is one declaration of a group version, as a load hands it
// to assembly: the parsed declaration, the side file whose conversion
// rules it takes, and whether its CRD is being deleted or installed (what
// MarkTerminating and MarkInstalling change in place).
type groupInput struct {
	origin                  *fileDecl
	rules                   *sideRules
	terminating, installing bool
}

func inputOf(fd *fileDecl, side *sideRules) groupInput {
	return groupInput{origin: fd, rules: side, terminating: fd.terminating, installing: fd.installing}
}

// declInput is one declaration of a kind, in the same terms.
type declInput struct {
	origin                  *resourceDecl
	rules                   *sideRules
	terminating, installing bool
}

// builtGroup is a group as a load assembled it, and its inputs.
type builtGroup struct {
	inputs []groupInput
	group  *Group
	kinds  map[string]*builtKind
	// names are the names each kind claims (claims), to the kind: no
	// two kinds claim one, or the group would not be kept.
	names map[nameKey]string
}

// builtKind is a kind of a builtGroup, and its declarations.
type builtKind struct {
	inputs []declInput
	res    *Resource
	// What the assembly numbered load found of inputs: how many, and
	// whether a declaration that is not one of them.
	load    uint64
	found   int
	changed bool
}

// loads numbers assemblies, for the marks they leave on builtKinds.
var loads atomic.Uint64

// kept tells whether the assembly numbered load found exactly bk's
// inputs.
func (bk *builtKind) kept(load uint64) bool {
	return bk != nil && bk.load == load && !bk.changed && bk.found == len(bk.inputs)
}

// nameKey is a name a kind claims in a group, in one of the spaces that
// checkGroupNames checks apart.
type nameKey struct {
	space uint8
	name  string
}

const (
	pluralSpace = iota // plurals and singulars
	shortSpace
	kindSpace // kinds and list kinds
)

// claims calls f with every name res claims in its group.
func claims(res *Resource, f func(nameKey)) {
	f(nameKey{pluralSpace, res.Plural})
	f(nameKey{pluralSpace, res.Singular})
	for _, s := range res.ShortNames {
		f(nameKey{shortSpace, s})
	}
	f(nameKey{kindSpace, res.Kind})
	f(nameKey{kindSpace, res.ListKind})
}

// reusable returns prev's group named name when it was built from
// inputs.
func (a *assembly) reusable(name string, inputs []groupInput) *builtGroup {
	b := a.prev[name]
	if b == nil || !slices.Equal(b.inputs, inputs) {
		return nil
	}
	return b
}

// keepable tells whether a group just assembled whole may be reused by a
// later load: it links no storage across groups, and nothing in it was a
// problem.
func keepable(kinds []*kindDecls, problemsBefore int, probs *problems) bool {
	return len(probs.list) == problemsBefore && !slices.ContainsFunc(kinds, (*kindDecls).borrows)
}

// newBuiltGroup is g, assembled whole from inputs, for a later load.
func newBuiltGroup(inputs []groupInput, g *Group, kinds []*kindDecls) *builtGroup {
	b := &builtGroup{inputs: inputs, group: g, kinds: make(map[string]*builtKind, len(kinds)),
		names: make(map[nameKey]string, 4*len(kinds))}
	for _, k := range kinds {
		b.add(k)
	}
	return b
}

// add adds the kind k, just built.
func (b *builtGroup) add(k *kindDecls) {
	bk := &builtKind{inputs: make([]declInput, len(k.decls)), res: k.res}
	for i, r := range k.decls {
		bk.inputs[i] = declInput{r.origin, r.side, r.terminating, r.installing}
	}
	b.kinds[k.kind] = bk
	claims(k.res, func(n nameKey) {
		if _, taken := b.names[n]; !taken {
			b.names[n] = k.kind
		}
	})
}

// rebuild assembles the group name from files again, keeping the kinds
// of prev's group whose declarations did not change; nil when it cannot
// (see the top of this file): the group is then assembled whole.
func (a *assembly) rebuild(name string, files []*fileDecl, inputs []groupInput) *builtGroup {
	prev := a.prev[name]
	if prev == nil {
		return nil
	}
	load := loads.Add(1)
	fresh := a.findChanged(prev, files, load)
	r := &regroup{a: a, prev: prev, load: load, name: name}
	r.versions(files)
	if !r.collect(files, fresh) || !r.build() {
		return nil
	}
	return r.finish(inputs)
}

// findChanged marks on prev's kinds which of their declarations files
// hold, and returns the set of kinds new or changed.
func (a *assembly) findChanged(prev *builtGroup, files []*fileDecl, load uint64) map[string]bool {
	var fresh map[string]bool
	for _, fd := range files {
		side := a.sides.of(fd)
		for _, r := range fd.resources {
			bk := prev.kinds[r.kind]
			if bk == nil {
				fresh = setAdd(fresh, r.kind)
				continue
			}
			if bk.load != load {
				bk.load, bk.found, bk.changed = load, 0, false
			}
			if slices.Contains(bk.inputs, declInput{r, side, r.terminating, r.installing}) {
				bk.found++
			} else {
				bk.changed = true
			}
		}
	}
	for kind, bk := range prev.kinds {
		if bk.load == load && !bk.kept(load) {
			fresh = setAdd(fresh, kind)
		}
	}
	return fresh
}

func setAdd(m map[string]bool, k string) map[string]bool {
	if m == nil {
		m = map[string]bool{}
	}
	m[k] = true
	return m
}

// regroup is one rebuild of a group.
type regroup struct {
	a    *assembly
	prev *builtGroup
	load uint64
	name string
	// firsts are the first file of each version, in version priority
	// order, and gvs their group versions.
	firsts []*fileDecl
	gvs    []*GroupVersion
	kinds  []*kindDecls // new or changed, in the order first collected
	group  *Group
}

// versions makes the group's versions, as assembleGroup does from the
// first file of each.
func (r *regroup) versions(files []*fileDecl) {
	for _, fd := range files {
		if !slices.ContainsFunc(r.firsts, func(f *fileDecl) bool { return f.version == fd.version }) {
			r.firsts = append(r.firsts, fd)
		}
	}
	sort.SliceStable(r.firsts, func(i, j int) bool {
		return version.CompareKubeAwareVersionStrings(r.firsts[i].version, r.firsts[j].version) > 0
	})
	r.group = &Group{Name: r.name, Versions: make([]*GroupVersion, len(r.firsts))}
	for i, fd := range r.firsts {
		gv := &GroupVersion{Group: r.name, Version: fd.version, File: fd.file, AllowBreaking: fd.allowBreaking, APIService: fd.apiService}
		if old := r.prevVersion(fd.version); old != nil {
			gv.Resources = make([]*ResourceVersion, 0, len(old.Resources)+1)
			for _, rv := range old.Resources {
				if r.prev.kinds[rv.Resource.Kind].kept(r.load) {
					gv.Resources = append(gv.Resources, rv)
				}
			}
		}
		r.group.Versions[i] = gv
	}
	r.gvs = r.group.Versions
}

func (r *regroup) prevVersion(v string) *GroupVersion {
	for _, gv := range r.prev.group.Versions {
		if gv.Version == v {
			return gv
		}
	}
	return nil
}

// collect copies the declarations of the kinds in fresh, each kind's in
// version priority order; false when a kind is declared twice in a
// version, a problem.
func (r *regroup) collect(files []*fileDecl, fresh map[string]bool) bool {
	byKind := make(map[string]*kindDecls, len(fresh))
	for i, first := range r.firsts {
		gv := r.gvs[i]
		for _, fd := range files {
			if fd.version != first.version {
				continue
			}
			side := r.a.sides.of(fd)
			for _, d := range fd.resources {
				if !fresh[d.kind] {
					continue
				}
				k := byKind[d.kind]
				if k == nil {
					k = &kindDecls{kind: d.kind}
					byKind[d.kind] = k
					r.kinds = append(r.kinds, k)
				}
				if len(k.gvs) > 0 && k.gvs[len(k.gvs)-1] == gv {
					return false
				}
				k.decls = append(k.decls, d.clone(side, fd.version))
				k.gvs = append(k.gvs, gv)
			}
		}
	}
	return true
}

// build builds the new and changed kinds; false when one is stored with
// another resource, or when one finds a problem or claims a name another
// claims.
func (r *regroup) build() bool {
	probs := &problems{}
	for _, k := range r.kinds {
		if k.borrows() {
			return false
		}
		buildResource(r.name, k, probs)
	}
	checkGroupNames(r.name, r.kinds, probs)
	if len(probs.list) > 0 {
		return false
	}
	for _, k := range r.kinds {
		clash := false
		claims(k.res, func(n nameKey) {
			owner, taken := r.prev.names[n]
			clash = clash || taken && r.prev.kinds[owner].kept(r.load)
		})
		if clash {
			return false
		}
	}
	return true
}

// finish makes the group's lists, index and names from the kept kinds and
// the new ones. The new builtGroup takes prev's maps of kinds and names
// and changes them, noting what it changed so that a load that fails can
// put them back (rollback): copying them would cost about every kind.
func (r *regroup) finish(inputs []groupInput) *builtGroup {
	prev, g := r.prev, r.group
	b := &builtGroup{inputs: inputs, group: g, kinds: prev.kinds, names: prev.names}
	idx := prev.group.index.next()
	g.Resources = make([]*Resource, 0, len(prev.group.Resources)+len(r.kinds))
	for _, res := range prev.group.Resources {
		if prev.kinds[res.Kind].kept(r.load) {
			g.Resources = append(g.Resources, res)
			continue
		}
		r.a.drop(b, res)
		idx.drop(res)
	}
	for _, k := range r.kinds {
		g.Resources = append(g.Resources, k.res)
		r.a.add(b, k)
	}
	sortGroup(g)
	for _, k := range r.kinds {
		idx.addResource(k.res)
	}
	g.index = idx
	return b
}

// undo is one change an assembly made to a map of an earlier one's
// builtGroup b: a kind's entry (bk) or a name's (owner) as it was before,
// present or not.
type undo struct {
	b       *builtGroup
	kind    string
	bk      *builtKind
	name    nameKey
	owner   string
	isName  bool
	present bool
}

// drop removes the kind of res, built before, from b.
func (a *assembly) drop(b *builtGroup, res *Resource) {
	a.undo = append(a.undo, undo{b: b, kind: res.Kind, bk: b.kinds[res.Kind], present: true})
	delete(b.kinds, res.Kind)
	claims(res, func(n nameKey) {
		if b.names[n] == res.Kind {
			a.undo = append(a.undo, undo{b: b, name: n, owner: res.Kind, isName: true, present: true})
			delete(b.names, n)
		}
	})
}

// add adds the kind k, just built, to b.
func (a *assembly) add(b *builtGroup, k *kindDecls) {
	old, present := b.kinds[k.kind]
	a.undo = append(a.undo, undo{b: b, kind: k.kind, bk: old, present: present})
	claims(k.res, func(n nameKey) {
		if _, taken := b.names[n]; !taken {
			a.undo = append(a.undo, undo{b: b, name: n, isName: true})
		}
	})
	b.add(k)
}

// rollback puts back what the assembly changed in the maps of prev's
// groups, for a load that failed: the Loader reuses prev again.
func (a *assembly) rollback() {
	for i := len(a.undo) - 1; i >= 0; i-- {
		switch u := a.undo[i]; {
		case u.isName && u.present:
			u.b.names[u.name] = u.owner
		case u.isName:
			delete(u.b.names, u.name)
		case u.present:
			u.b.kinds[u.kind] = u.bk
		default:
			delete(u.b.kinds, u.kind)
		}
	}
	a.undo = nil
}

// drop removes res from the index.
func (idx *groupIndex) drop(res *Resource) {
	if idx.byPlural.get(res.Plural) == res {
		idx.byPlural.set(res.Plural, nil)
	}
	for _, rv := range res.Versions {
		if k := (versionPlural{rv.Version, res.Plural}); idx.byVersion.get(k) == rv {
			idx.byVersion.set(k, nil)
		}
	}
}
