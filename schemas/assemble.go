package schemas

import (
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/version"
)

// assemble checks what the files declare against each other and builds the
// registry: one group version per file, one resource per kind of a group.
func assemble(files []*fileDecl, probs *problems) *Registry {
	reg, _ := (&assembly{probs: probs}).run(files)
	return reg
}

// assembly is one assembly of a load's files, reusing what prev, the
// groups of an earlier one, built from the same declarations (reuse.go).
// The files are as parsed: the declarations of a group or kind assembled
// again are copied first (fileDecl.clone), since assembly fills them in.
type assembly struct {
	probs *problems
	sides sideSet
	prev  map[string]*builtGroup
	// undo is what the assembly changed in prev's maps (reuse.go).
	undo []undo
}

// run assembles files. It returns the groups a later assembly may reuse.
func (a *assembly) run(files []*fileDecl) (*Registry, map[string]*builtGroup) {
	files, a.sides = applySideRules(files, a.probs)
	byGroup, inputs := groupFiles(files, a.sides, a.probs)
	groups := make([]*Group, 0, len(byGroup))
	built := make(map[string]*builtGroup, len(byGroup))
	var kinds []*kindDecls
	for _, name := range sortedKeys(byGroup) {
		if b := a.reusable(name, inputs[name]); b != nil {
			groups = append(groups, b.group)
			built[name] = b
			continue
		}
		if b := a.rebuild(name, byGroup[name], inputs[name]); b != nil {
			groups = append(groups, b.group)
			built[name] = b
			continue
		}
		before := len(a.probs.list)
		g, ks := assembleFiles(name, byGroup[name], a.sides, a.probs)
		groups = append(groups, g)
		kinds = append(kinds, ks...)
		if keepable(ks, before, a.probs) {
			built[name] = newBuiltGroup(inputs[name], g, ks)
		}
	}
	reg := NewRegistry(groups)
	linkStorage(reg, kinds, a.probs)
	return reg, built
}

// groupFiles sorts the files that declare group versions by group, in
// file order, but for a second specd file of one group version, a
// problem: CRDs (and a specd file beside them) may share a group
// version, two specd files may not. inputs are each group's
// declarations in file order.
func groupFiles(files []*fileDecl, sides sideSet, probs *problems) (map[string][]*fileDecl, map[string][]groupInput) {
	byGroup := map[string][]*fileDecl{}
	inputs := map[string][]groupInput{}
	seen := map[[2]string]*fileDecl{}
	var run groupRun
	for _, fd := range files {
		if !fd.hasGroup || fd.version == "" {
			continue
		}
		if fd.group != run.name {
			run.end(byGroup, inputs)
			run = groupRun{name: fd.group, files: byGroup[fd.group], inputs: inputs[fd.group]}
		}
		run.inputs = append(run.inputs, inputOf(fd, sides.of(fd)))
		if !run.first(fd, seen, probs) {
			continue
		}
		run.files = append(run.files, fd)
	}
	run.end(byGroup, inputs)
	return byGroup, inputs
}

// groupRun is what groupFiles gathers of files of one group that come one
// after another, as the CRDs of a group do: their lists are stored once
// the run ends, not looked up and stored again for every file.
type groupRun struct {
	name    string
	files   []*fileDecl
	inputs  []groupInput
	version string
	// firstOf is the first file of version.
	firstOf *fileDecl
}

// first tells whether fd is to be assembled: it is not a second specd
// file of its group version, a problem (CRDs, and a specd file beside
// them, may share one).
func (r *groupRun) first(fd *fileDecl, seen map[[2]string]*fileDecl, probs *problems) bool {
	if fd.version != r.version || r.firstOf == nil {
		key := [2]string{fd.group, fd.version}
		if seen[key] == nil {
			seen[key] = fd
		}
		r.version, r.firstOf = fd.version, seen[key]
	}
	if first := r.firstOf; first != fd && first.crd == nil && fd.crd == nil {
		probs.add(fd.file, "/info/version", "group version %s/%s is already declared in %s", fd.group, fd.version, first.file)
		return false
	}
	return true
}

// end stores the run's lists.
func (r *groupRun) end(byGroup map[string][]*fileDecl, inputs map[string][]groupInput) {
	if r.name == "" && r.inputs == nil {
		return
	}
	byGroup[r.name], inputs[r.name] = r.files, r.inputs
}

// assembleFiles assembles the group name from copies of its files: the
// resources of the files of one version join the first's.
func assembleFiles(name string, files []*fileDecl, sides sideSet, probs *problems) (*Group, []*kindDecls) {
	var firsts []*fileDecl
	byVersion := map[string]*fileDecl{}
	for _, fd := range files {
		c := fd.clone(sides.of(fd))
		if first := byVersion[fd.version]; first != nil {
			first.resources = append(first.resources, c.resources...)
			continue
		}
		byVersion[fd.version] = c
		firsts = append(firsts, c)
	}
	return assembleGroup(name, firsts, probs)
}

// kindDecls is a kind of a group and its declarations, in the group's
// version priority order.
type kindDecls struct {
	kind  string
	decls []*resourceDecl
	gvs   []*GroupVersion
	ref   *resourceDecl // where the resource's names come from
	res   *Resource
}

func assembleGroup(name string, files []*fileDecl, probs *problems) (*Group, []*kindDecls) {
	// Keep file order for "first declared" and sort a copy by priority.
	byPriority := slices.Clone(files)
	sort.SliceStable(byPriority, func(i, j int) bool {
		return version.CompareKubeAwareVersionStrings(byPriority[i].version, byPriority[j].version) > 0
	})
	g := &Group{Name: name}
	gvOf := map[*fileDecl]*GroupVersion{}
	for _, fd := range byPriority {
		gv := &GroupVersion{Group: name, Version: fd.version, File: fd.file, AllowBreaking: fd.allowBreaking, APIService: fd.apiService}
		gvOf[fd] = gv
		g.Versions = append(g.Versions, gv)
	}
	kinds := collectKinds(files, byPriority, gvOf, probs)
	for _, k := range kinds {
		g.Resources = append(g.Resources, buildResource(name, k, probs))
	}
	checkGroupNames(name, kinds, probs)
	sortGroup(g)
	g.index = newGroupIndex(g)
	return g, kinds
}

// collectKinds groups the declarations of the group by kind, kinds in the
// order they are first declared (files in path order), each kind's
// declarations in version priority order.
func collectKinds(files, byPriority []*fileDecl, gvOf map[*fileDecl]*GroupVersion, probs *problems) []*kindDecls {
	var kinds []*kindDecls
	n := 0
	for _, fd := range files {
		n += len(fd.resources)
	}
	byKind := make(map[string]*kindDecls, n)
	for _, fd := range files {
		for _, r := range fd.resources {
			if byKind[r.kind] == nil {
				byKind[r.kind] = &kindDecls{kind: r.kind}
				kinds = append(kinds, byKind[r.kind])
			}
		}
	}
	for _, fd := range byPriority {
		inFile := map[string]*resourceDecl{}
		for _, r := range fd.resources {
			if first := inFile[r.kind]; first != nil {
				probs.add(r.file, r.at("kind"), "kind %s is already declared in this group version at %s", r.kind, declaredAt(first, r))
				continue
			}
			inFile[r.kind] = r
			k := byKind[r.kind]
			k.decls = append(k.decls, r)
			k.gvs = append(k.gvs, gvOf[fd])
		}
	}
	return kinds
}

// sortGroup sorts g's resources, and those of each version, by plural.
func sortGroup(g *Group) {
	sort.Slice(g.Resources, func(i, j int) bool { return g.Resources[i].Plural < g.Resources[j].Plural })
	for _, gv := range g.Versions {
		sort.Slice(gv.Resources, func(i, j int) bool {
			return gv.Resources[i].Resource.Plural < gv.Resources[j].Resource.Plural
		})
	}
}

// buildResource checks that the versions of a kind agree and have one
// storage version, and links them into a Resource.
func buildResource(group string, k *kindDecls, probs *problems) *Resource {
	dropForeign(group, k, probs)
	var ref *resourceDecl
	if k.borrows() {
		ref = checkStoredWith(k, probs)
	} else {
		ref = checkStorage(k, probs)
	}
	k.ref = ref
	res := &Resource{
		Group:          group,
		Kind:           k.kind,
		ListKind:       ref.listKindOrDefault(),
		CRD:            ref.crdName(),
		AllowBreaking:  ref.allowBreaking,
		Terminating:    ref.terminating,
		Installing:     ref.installing,
		Plural:         ref.plural,
		Singular:       ref.singular,
		ShortNames:     ref.shortNames,
		Categories:     ref.categories,
		Scope:          ref.scope,
		NameValidation: ref.nameValidation,
		Verbs:          ref.verbs,

		UnconditionalUpdate: ref.unconditionalUpdate,
		NoGeneration:        ref.noGeneration,
	}
	k.res = res
	for i, r := range k.decls {
		if r != ref {
			checkSameNames(ref, r, k.gvs[i].Version, probs)
		}
		rv := r.rv
		rv.Resource, rv.Version, rv.Storage = res, k.gvs[i].Version, r == ref && !k.borrows() && storageOK(k)
		if rv.Storage {
			res.StorageVersion = rv.Version
		}
		res.Versions = append(res.Versions, rv)
		k.gvs[i].Resources = append(k.gvs[i].Resources, rv)
		checkConversion(r, probs)
	}
	setVersioning(res, k.decls)
	checkHooks(res, probs)
	return res
}

// checkStorage reports a kind without exactly one storage version and
// returns the declaration the resource's names come from: the storage
// version's, or else the preferred version's.
func checkStorage(k *kindDecls, probs *problems) *resourceDecl {
	if len(k.decls) == 1 {
		r := k.decls[0]
		if r.storage != nil && !*r.storage {
			probs.add(r.file, r.at("storage"), "kind %s is declared in one version only, which must be its storage version", k.kind)
		}
		return r
	}
	var stored []*resourceDecl
	for _, r := range k.decls {
		if r.storage != nil && *r.storage {
			stored = append(stored, r)
		}
	}
	switch len(stored) {
	case 1:
		return stored[0]
	case 0:
		for _, r := range k.decls {
			probs.add(r.file, r.ext, "kind %s is declared in versions %s: exactly one must set storage: true (none does)",
				k.kind, versionList(k))
		}
	default:
		for _, r := range stored {
			probs.add(r.file, r.at("storage"), "kind %s is declared in versions %s: exactly one must set storage: true (%d do)",
				k.kind, versionList(k), len(stored))
		}
	}
	return k.decls[0]
}

func storageOK(k *kindDecls) bool {
	if len(k.decls) == 1 {
		return k.decls[0].storage == nil || *k.decls[0].storage
	}
	n := 0
	for _, r := range k.decls {
		if r.storage != nil && *r.storage {
			n++
		}
	}
	return n == 1
}

func versionList(k *kindDecls) string {
	vs := make([]string, len(k.gvs))
	for i, gv := range k.gvs {
		vs[i] = gv.Version
	}
	return strings.Join(vs, ", ")
}
