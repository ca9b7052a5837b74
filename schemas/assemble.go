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
	reg, _ := assembleReusing(files, probs, nil)
	return reg
}

// assembleReusing is assemble taking, for each group whose inputs are
// those of prev's group of that name, prev's group as it is (reuse.go).
// It returns the groups a later call may reuse.
func assembleReusing(files []*fileDecl, probs *problems, prev map[string]*builtGroup) (*Registry, map[string]*builtGroup) {
	files = applySideRules(files, probs)
	byGroup, inputs := groupFiles(files, probs)
	groups := make([]*Group, 0, len(byGroup))
	built := make(map[string]*builtGroup, len(byGroup))
	var kinds []*kindDecls
	for _, name := range sortedKeys(byGroup) {
		if g := reusable(prev, name, inputs[name]); g != nil {
			groups = append(groups, g)
			built[name] = prev[name]
			continue
		}
		before := len(probs.list)
		g, ks := assembleGroup(name, byGroup[name], probs)
		groups = append(groups, g)
		kinds = append(kinds, ks...)
		if keepable(inputs[name], ks, before, probs) {
			built[name] = &builtGroup{inputs: inputs[name], group: g}
		}
	}
	reg := NewRegistry(groups)
	linkStorage(reg, kinds, probs)
	return reg, built
}

// groupFiles merges the files that declare one group version and sorts
// them by group, in file order; inputs are each group's declarations in
// that order, nil for a group with one not copied from a parsed file.
func groupFiles(files []*fileDecl, probs *problems) (map[string][]*fileDecl, map[string][]groupInput) {
	byGroup := map[string][]*fileDecl{}
	inputs := map[string][]groupInput{}
	unknown := map[string]bool{}
	seen := map[[2]string]*fileDecl{}
	for _, fd := range files {
		if !fd.hasGroup || fd.version == "" {
			continue
		}
		in, ok := inputOf(fd)
		unknown[fd.group] = unknown[fd.group] || !ok
		inputs[fd.group] = append(inputs[fd.group], in)
		key := [2]string{fd.group, fd.version}
		if first := seen[key]; first != nil {
			mergeGroupVersion(first, fd, probs)
			continue
		}
		// Clipped, the first merge copies the resources, which the parsed
		// declarations share; later merges append to that copy.
		fd.resources = slices.Clip(fd.resources)
		seen[key] = fd
		byGroup[fd.group] = append(byGroup[fd.group], fd)
	}
	for name := range unknown {
		if unknown[name] {
			inputs[name] = nil
		}
	}
	return byGroup, inputs
}

// mergeGroupVersion adds the resources of fd to first, which declares the
// same group version: CRDs (and a specd file beside them) may share a group
// version, two specd files may not.
func mergeGroupVersion(first, fd *fileDecl, probs *problems) {
	if first.crd == nil && fd.crd == nil {
		probs.add(fd.file, "/info/version", "group version %s/%s is already declared in %s", fd.group, fd.version, first.file)
		return
	}
	first.resources = append(first.resources, fd.resources...)
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
	sort.Slice(g.Resources, func(i, j int) bool { return g.Resources[i].Plural < g.Resources[j].Plural })
	for _, gv := range g.Versions {
		sort.Slice(gv.Resources, func(i, j int) bool {
			return gv.Resources[i].Resource.Plural < gv.Resources[j].Resource.Plural
		})
	}
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
