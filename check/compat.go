package check

import (
	"context"
	"fmt"

	"github.com/specd-io/specd/schemas"
)

// Compare names every change from the previous registry to the next one
// that breaks an existing client or stored object, under the rules of
// "So you want to change the API?". Findings are sorted by file and
// pointer; the rules are listed in docs/check.md. Removing the storage
// version is always an error: Compare cannot know whether objects are
// stored in it (CompareStored can).
func Compare(previous, next *schemas.Registry) []Finding {
	return CompareStored(context.Background(), previous, next, nil)
}

// CompareStored is Compare, with stored telling, when not nil, whether
// objects are stored in a version that is removed: it is an error only
// then.
func CompareStored(ctx context.Context, previous, next *schemas.Registry, stored StoredObjects) []Finding {
	c := &comparer{Report: &Report{}, ctx: ctx, stored: stored}
	// Only a resource the registries do not share can have changed; a
	// reload that adds one CRD beside thousands compares none of them.
	schemas.EachChanged(previous, next, func(ores, nres *schemas.Resource) {
		if ores != nil && !sameBytes(ores, nres) {
			c.compareResource(ores, nres)
		}
	})
	c.sortFindings()
	return c.Findings
}

// sameBytes reports whether both registries declare the resource from
// the same bytes (not built by hand): there is nothing to find, and a
// reload that adds one CRD beside a hundred should not compare them all
// again.
func sameBytes(old, next *schemas.Resource) bool {
	if !schemas.SameDeclaration(old, next) || old == nil {
		return false
	}
	for _, rv := range old.Versions {
		if rv.FileDigest == "" {
			return false
		}
	}
	return true
}

// comparer is one Compare: the report it fills, and where it reads what
// is stored.
type comparer struct {
	*Report
	ctx    context.Context
	stored StoredObjects
}

func (r *Report) add(sev Severity, rule, file, pointer string, rv *schemas.ResourceVersion, field, format string, args ...any) {
	r.Findings = append(r.Findings, Finding{
		Severity: sev, Rule: rule, File: file, Pointer: pointer,
		Resource: rv.Resource.GroupResource(), Version: rv.Version, Field: field,
		Message: fmt.Sprintf(format, args...),
	})
}

func (r *comparer) compareResource(old, next *schemas.Resource) {
	if next == nil {
		for _, ov := range old.Versions {
			r.add(breaking(ov.Version), "resource-removed", ov.File, ov.Pointer, ov, "",
				"%s %s is removed: clients of %s can no longer use it", old.GroupResource(), ov.Version, ov.APIVersion())
		}
		r.storageRemoved(old, nil)
		return
	}
	for _, ov := range old.Versions {
		nv := next.Version(ov.Version)
		switch {
		case nv == nil:
			r.add(removal(ov), "version-removed", ov.File, ov.Pointer, ov, "",
				"version %s of %s is removed%s", ov.Version, old.GroupResource(), deprecatedNote(ov))
			continue
		case ov.Served() && !nv.Served():
			r.add(removal(ov), "version-unserved", nv.File, nv.DeclarationPointer(""), nv, "",
				"version %s of %s is no longer served: its clients get 404%s", ov.Version, old.GroupResource(), deprecatedNote(ov))
		}
		r.compareVersion(ov, nv)
	}
	r.storageRemoved(old, next)
}

// storageRemoved: objects are stored in the old storage version; a new
// registry that does not declare it at all cannot read them. Changing the
// storage version to another one is fine when the old one stays declared
// (specd migrates the stored objects); that is a warning to keep it until
// the migration is done. With r.stored, what is stored decides
// (compat_stored.go).
func (r *comparer) storageRemoved(old, next *schemas.Resource) {
	ov := old.Version(old.StorageVersion)
	if ov == nil {
		return
	}
	if r.stored != nil {
		r.storedRemoved(old, next)
	} else if next == nil || next.Version(old.StorageVersion) == nil {
		r.add(Error, "storage-version-removed", ov.File, ov.Pointer, ov, "",
			"%s is the storage version of %s and is removed: objects stored in it can no longer be read; keep it until they are migrated to %s (specd check --etcd-servers tells whether any is stored)",
			ov.Version, old.GroupResource(), storageOf(next))
	}
	if next != nil && next.Version(old.StorageVersion) != nil && next.StorageVersion != old.StorageVersion {
		nv := next.Version(next.StorageVersion)
		r.add(Warning, "storage-version-changed", nv.File, nv.Pointer, nv, "",
			"the storage version of %s changes from %s to %s: stored objects are migrated; keep %s until the migration is done",
			old.GroupResource(), old.StorageVersion, next.StorageVersion, old.StorageVersion)
	}
}

// removal is the severity of removing a version (or no longer serving
// it): the deprecation policy lets a beta version go once it has been
// deprecated, an alpha one at any time, a stable one never.
func removal(ov *schemas.ResourceVersion) Severity {
	if LevelOf(ov.Version) == Beta && ov.Deprecated {
		return Warning
	}
	return breaking(ov.Version)
}

func deprecatedNote(ov *schemas.ResourceVersion) string {
	if ov.Deprecated {
		return " (it was deprecated)"
	}
	return ""
}

func storageOf(res *schemas.Resource) string {
	if res == nil {
		return "another resource"
	}
	return res.StorageVersion
}

func (r *Report) compareVersion(ov, nv *schemas.ResourceVersion) {
	sev := breaking(nv.Version)
	old, next := ov.Resource, nv.Resource
	if old.Kind != next.Kind {
		r.add(sev, "kind-changed", nv.File, nv.DeclarationPointer(""), nv, "",
			"kind changes from %s to %s", old.Kind, next.Kind)
	}
	if old.Scope != next.Scope {
		r.add(sev, "scope-changed", nv.File, nv.DeclarationPointer(""), nv, "",
			"scope changes from %s to %s: every URL and stored key of %s changes", old.Scope, next.Scope, old.GroupResource())
	}
	if ov.StatusSubresource && !nv.StatusSubresource {
		r.add(sev, "subresource-removed", nv.File, nv.DeclarationPointer(""), nv, "",
			"the status subresource is removed: clients that write /status fail")
	}
	r.selectableFields(ov, nv, sev)
	r.printerColumns(ov, nv)
	fc := fieldCompare{r: r, ov: ov, nv: nv, sev: sev}
	fc.schema(ov.OpenAPI, nv.OpenAPI, ov.Pointer, nv.Pointer, "", true)
}

// selectableFields: a field selector on a field that is no longer
// selectable is refused.
func (r *Report) selectableFields(ov, nv *schemas.ResourceVersion, sev Severity) {
	now := map[string]bool{}
	for _, f := range nv.SelectableFields {
		now[f.JSONPath] = true
	}
	for i, f := range ov.SelectableFields {
		if !now[f.JSONPath] {
			r.add(sev, "selectable-field-removed", ov.File, fmt.Sprintf("%s/%d", ov.DeclarationPointer("selectableFields"), i), ov, f.JSONPath,
				"%s is no longer a selectable field: field selectors on it are refused", f.JSONPath)
		}
	}
}
