package schemas

import (
	"fmt"
	"strings"
)

// A kind may be served from the storage of another resource, as
// kube-apiserver serves events.k8s.io/v1 events from the core events'
// storage: x-specd-resource storageResource names that resource
// (plural.group, a plural alone for the core group). Its objects are the
// other resource's, converted between its storage version and this kind's
// versions by this kind's conversion rules; none of this kind's versions
// is a storage version.

// decodeStorageResource reads storageResource.
func (r *resourceDecl) decodeStorageResource(d decoder, m map[string]any) {
	s, ok := d.str(m, "storageResource", r.ext)
	if !ok {
		return
	}
	r.storageResource = s
	plural, _, _ := strings.Cut(s, ".")
	errs := labelErrors(plural)
	r.storageResourceBad = len(errs) > 0
	for _, e := range errs {
		d.probs.add(d.file, ptr(r.ext, "storageResource"),
			"storageResource %q: plural %q: %s (name a resource as plural.group, or its plural alone for the core group)", s, plural, e)
	}
}

// borrows reports whether a version of the kind names a storageResource.
func (k *kindDecls) borrows() bool {
	for _, r := range k.decls {
		if r.storageResource != "" {
			return true
		}
	}
	return false
}

// checkStoredWith reports versions of a kind stored with another resource
// that disagree on it, or that set storage: true; it returns the
// declaration the resource's names come from, the preferred version's.
func checkStoredWith(k *kindDecls, probs *problems) *resourceDecl {
	ref := k.decls[0]
	for i, r := range k.decls {
		if r.storageResource != ref.storageResource {
			probs.add(r.file, r.at("storageResource"),
				"kind %s has storageResource %s in version %s but %s in %s#%s; every version of a kind must agree",
				k.kind, quoteOrNone(r.storageResource), k.gvs[i].Version, quoteOrNone(ref.storageResource), ref.file, ref.pointer)
		}
		if r.storage != nil && *r.storage {
			probs.add(r.file, r.at("storage"),
				"kind %s is stored with %s (storageResource): none of its versions is a storage version", k.kind, ref.storageResource)
		}
	}
	return ref
}

func quoteOrNone(s string) string {
	if s == "" {
		return "none"
	}
	return quote(s)
}

// linkStorage points every kind stored with another resource at it, once
// every group is assembled: the other resource may be in any group.
func linkStorage(reg *Registry, kinds []*kindDecls, probs *problems) {
	borrowers := map[*Resource]bool{}
	for _, k := range kinds {
		if k.borrows() && k.res != nil {
			borrowers[k.res] = true
		}
	}
	for _, k := range kinds {
		if !borrowers[k.res] || k.ref.storageResourceBad {
			continue
		}
		ref := k.ref
		target := reg.Resource(ref.storageResource)
		if msg := storedWithProblem(k.res, target, borrowers[target]); msg != "" {
			probs.add(ref.file, ref.at("storageResource"), "storageResource %q: %s", ref.storageResource, msg)
			continue
		}
		k.res.StoredWith, k.res.StorageVersion = target, target.StorageVersion
		checkStoredWithHooks(k.res, probs)
	}
}

// storedWithProblem says why res cannot be stored with target, which
// borrows storage itself or not; "" if it can.
func storedWithProblem(res, target *Resource, borrows bool) string {
	switch {
	case target == nil:
		return "no such resource is declared (name it plural.group, or its plural alone for the core group)"
	case target == res:
		return "names this kind itself"
	case borrows:
		return fmt.Sprintf("%s is itself stored with another resource: name that one", target.GroupResource())
	case target.Kind != res.Kind:
		return fmt.Sprintf("its kind is %s, not %s: a kind is stored only with a resource of the same kind", target.Kind, res.Kind)
	case target.Scope != res.Scope:
		return fmt.Sprintf("its scope is %s, not %s", target.Scope, res.Scope)
	}
	return ""
}

// checkStoredWithHooks reports validate and reconcile bindings on a kind
// stored with another resource: they see objects as stored, so they bind
// on the storage version of the resource that stores them.
func checkStoredWithHooks(res *Resource, probs *problems) {
	for _, rv := range res.Versions {
		if rv.Hooks == nil {
			continue
		}
		for _, b := range rv.Hooks.Plugins() {
			if b.Hook != "default" {
				probs.add(rv.Hooks.File, b.Pointer,
					"%s may be bound only on the storage version %s of %s, which stores kind %s of %s (default may be bound on any version)",
					b.Hook, res.StorageVersion, res.StoredWith.GroupResource(), res.Kind, res.Group)
			}
		}
	}
}
