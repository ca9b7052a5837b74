package schemas

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotDeclared is returned (wrapped) by Disable for a group, group
// version or resource that no schema file declares.
var ErrNotDeclared = errors.New("schemas: not declared")

// CoreGroupName is how Disable names the core group (""), as
// kube-apiserver's --runtime-config does: "api", "api/v1",
// "api/v1/events".
const CoreGroupName = "api"

// Disable returns a copy of r in which the named groups ("G"), group
// versions ("G/V") and resources of a group version ("G/V/plural") are not
// served, as kube-apiserver's --runtime-config switches APIs off: they
// leave discovery and routing, and their objects stay in storage. The core
// group is named "api" (CoreGroupName). r itself is not changed. A name
// that r does not declare is an error, so that a misspelt name is not
// silently ignored.
func (r *Registry) Disable(names ...string) (*Registry, error) {
	off := map[*ResourceVersion]bool{}
	var errs []error
	for _, name := range names {
		rvs, err := r.resolve(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, rv := range rvs {
			off[rv] = true
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if len(off) == 0 {
		return r, nil
	}
	return r.clone(off), nil
}

// DisableGroup is the group a --disable name names: "" for "api".
func DisableGroup(name string) string {
	group, _, _ := strings.Cut(name, "/")
	if group == CoreGroupName {
		return ""
	}
	return group
}

// resolve returns the resource versions a --disable name stands for.
func (r *Registry) resolve(name string) ([]*ResourceVersion, error) {
	_, rest, hasVersion := strings.Cut(name, "/")
	group := DisableGroup(name)
	g := r.Group(group)
	if g == nil {
		return nil, fmt.Errorf("%w: group %q", ErrNotDeclared, group)
	}
	if !hasVersion {
		var out []*ResourceVersion
		for _, gv := range g.Versions {
			out = append(out, gv.Resources...)
		}
		return out, nil
	}
	version, plural, hasResource := strings.Cut(rest, "/")
	gv := r.GroupVersion(group, version)
	if gv == nil {
		return nil, fmt.Errorf("%w: group version %q (%s has %s)", ErrNotDeclared, name, groupLabel(group), versionNames(g))
	}
	if !hasResource {
		return gv.Resources, nil
	}
	for _, rv := range gv.Resources {
		if rv.Resource.Plural == plural {
			return []*ResourceVersion{rv}, nil
		}
	}
	return nil, fmt.Errorf("%w: resource %q (%s/%s has %s)", ErrNotDeclared, name, groupLabel(group), version, pluralNames(gv))
}

// groupLabel names a group in messages: "api" for the core group.
func groupLabel(group string) string {
	if group == "" {
		return CoreGroupName
	}
	return group
}

func versionNames(g *Group) string {
	vs := make([]string, len(g.Versions))
	for i, gv := range g.Versions {
		vs[i] = gv.Version
	}
	return strings.Join(vs, ", ")
}

func pluralNames(gv *GroupVersion) string {
	ps := make([]string, len(gv.Resources))
	for i, rv := range gv.Resources {
		ps[i] = rv.Resource.Plural
	}
	return strings.Join(ps, ", ")
}

// clone copies the registry's groups, versions and resources, with every
// resource version in off not served. Schemas and the other compiled
// parts are shared: they are immutable.
func (r *Registry) clone(off map[*ResourceVersion]bool) *Registry {
	groups := make([]*Group, len(r.groups))
	copies := map[*Resource]*Resource{}
	for i, g := range r.groups {
		groups[i] = cloneGroup(g, off, copies)
	}
	// StoredWith may name a resource of another group: point it at the
	// copy, whose versions say what this registry serves.
	for _, c := range copies {
		if c.StoredWith != nil {
			c.StoredWith = copies[c.StoredWith]
		}
	}
	return NewRegistry(groups)
}

func cloneGroup(g *Group, off map[*ResourceVersion]bool, copies map[*Resource]*Resource) *Group {
	ng := &Group{Name: g.Name}
	rvs := map[*ResourceVersion]*ResourceVersion{}
	for _, res := range g.Resources {
		nr := *res
		copies[res] = &nr
		nr.Versions = make([]*ResourceVersion, len(res.Versions))
		for i, rv := range res.Versions {
			nrv := *rv
			nrv.Resource = &nr
			nrv.Hidden = rv.Hidden || off[rv]
			nr.Versions[i] = &nrv
			rvs[rv] = &nrv
		}
		ng.Resources = append(ng.Resources, &nr)
	}
	for _, gv := range g.Versions {
		ngv := *gv
		ngv.Resources = make([]*ResourceVersion, len(gv.Resources))
		for i, rv := range gv.Resources {
			ngv.Resources[i] = rvs[rv]
		}
		ng.Versions = append(ng.Versions, &ngv)
	}
	for _, res := range ng.Resources {
		setDefaultWarnings(res)
	}
	return ng
}
