package schemas

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotDeclared is returned (wrapped) by Disable for a group or group
// version that no schema file declares.
var ErrNotDeclared = errors.New("schemas: not declared")

// Disable returns a copy of r in which the named groups ("G") and group
// versions ("G/V") are not served, as kube-apiserver's --runtime-config
// switches API groups off: they leave discovery and routing, and their
// objects stay in storage. r itself is not changed. A name that r does not
// declare is an error, so that a misspelt name is not silently ignored.
func (r *Registry) Disable(names ...string) (*Registry, error) {
	off := map[*GroupVersion]bool{}
	var errs []error
	for _, name := range names {
		gvs, err := r.resolve(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, gv := range gvs {
			off[gv] = true
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

// resolve returns the group versions a --disable name stands for.
func (r *Registry) resolve(name string) ([]*GroupVersion, error) {
	group, version, hasVersion := strings.Cut(name, "/")
	g := r.Group(group)
	if g == nil {
		return nil, fmt.Errorf("%w: group %q", ErrNotDeclared, group)
	}
	if !hasVersion {
		return g.Versions, nil
	}
	gv := r.GroupVersion(group, version)
	if gv == nil {
		return nil, fmt.Errorf("%w: group version %q (%s has %s)", ErrNotDeclared, name, group, versionNames(g))
	}
	return []*GroupVersion{gv}, nil
}

func versionNames(g *Group) string {
	vs := make([]string, len(g.Versions))
	for i, gv := range g.Versions {
		vs[i] = gv.Version
	}
	return strings.Join(vs, ", ")
}

// clone copies the registry's groups, versions and resources, with every
// resource of the group versions in off not served. Schemas and the other
// compiled parts are shared: they are immutable.
func (r *Registry) clone(off map[*GroupVersion]bool) *Registry {
	groups := make([]*Group, len(r.groups))
	for i, g := range r.groups {
		groups[i] = cloneGroup(g, off)
	}
	return NewRegistry(groups)
}

func cloneGroup(g *Group, off map[*GroupVersion]bool) *Group {
	ng := &Group{Name: g.Name}
	rvs := map[*ResourceVersion]*ResourceVersion{}
	for _, res := range g.Resources {
		nr := *res
		nr.Versions = make([]*ResourceVersion, len(res.Versions))
		for i, rv := range res.Versions {
			nrv := *rv
			nrv.Resource = &nr
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
			if off[gv] {
				ngv.Resources[i].Hidden = true
			}
		}
		ng.Versions = append(ng.Versions, &ngv)
	}
	for _, res := range ng.Resources {
		setDefaultWarnings(res)
	}
	return ng
}
