package watchcache

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/schemas"
)

// BeforeSwap lets every reload through: the caches follow it after the
// swap.
func (c *Served) BeforeSwap(context.Context, *schemas.Registry, *schemas.Registry) error { return nil }

// AfterSwap ends the caches of the resources old and next declare
// differently, and serves again those next serves and old did not. Several
// resources may share one cache (a resource stored with another,
// schemas.Resource.StoredWith): the cache is gone only when none of them
// is served any more, and otherwise the versions of those that went end
// alone.
func (c *Served) AfterSwap(_ context.Context, old, next *schemas.Registry) {
	c.swapMu.Lock()
	defer c.swapMu.Unlock()
	nextAt, was := c.follow(old, next)
	c.last = servedIndex{reg: next, at: nextAt}
	for key, olds := range was {
		nexts := nextAt[key]
		switch {
		case len(olds) == 0:
		case len(nexts) == 0:
			// Its watches end with an ERROR event; its objects stay.
			c.end(key, goneError(olds[0]), nil)
		case changed(olds, nexts, next):
			// A watch must not go on with the old schema or rules, nor a
			// new one be served events converted under them: as
			// kube-apiserver does when a CRD changes, the cache stops
			// and its watchers watch again; the cache starts again at
			// the revision they watch from, so they miss nothing. Those
			// of a version no longer served get an ERROR event instead.
			gone := map[string]error{}
			for _, res := range olds {
				maps.Copy(gone, versionsGone(res, next.Resource(res.GroupResource())))
			}
			c.end(key, nil, gone)
		}
	}
	for key, olds := range was {
		if len(olds) == 0 && len(nextAt[key]) > 0 {
			// New, or back: its objects (kept in storage) are served
			// again; its cache starts on first use.
			c.revive(key)
		}
	}
}

// follow returns next's served resources by cache key, and was, what old
// served of each key whose resources may differ. Under swapMu.
func (c *Served) follow(old, next *schemas.Registry) (at, was map[string][]*schemas.Resource) {
	if old == nil || old != c.last.reg {
		return c.followWhole(old, next)
	}
	return c.followChanges(old, next)
}

// followWhole indexes next whole: every key may differ.
func (c *Served) followWhole(old, next *schemas.Registry) (at, was map[string][]*schemas.Resource) {
	oldAt := c.servedByKey(old)
	at, was = c.servedByKey(next), maps.Clone(oldAt)
	for key := range at {
		was[key] = oldAt[key]
	}
	return at, was
}

// followChanges changes old's index, the last reload's, in place for the
// resources the reload changed (schemas.EachChanged), so that a reload
// beside thousands of CRDs costs what it changed. The index's lists are
// never written: a change makes a new one, so was keeps what old served.
func (c *Served) followChanges(old, next *schemas.Registry) (at, was map[string][]*schemas.Resource) {
	at, was = c.last.at, map[string][]*schemas.Resource{}
	change := func(res *schemas.Resource, f func([]*schemas.Resource) []*schemas.Resource) {
		key := c.key(res)
		if _, saved := was[key]; !saved {
			was[key] = at[key]
		}
		at[key] = f(at[key])
	}
	schemas.EachChanged(old, next, func(o, n *schemas.Resource) {
		if o.Served() {
			change(o, func(rs []*schemas.Resource) []*schemas.Resource {
				return slices.DeleteFunc(slices.Clone(rs), func(r *schemas.Resource) bool { return r == o })
			})
		}
		if n.Served() {
			change(n, func(rs []*schemas.Resource) []*schemas.Resource { return append(slices.Clip(rs), n) })
		}
	})
	for key := range was {
		if len(at[key]) == 0 {
			delete(at, key)
		} else {
			slices.SortFunc(at[key], byGroupResource)
		}
	}
	return at, was
}

// byGroupResource orders resources as a registry lists them: by group,
// then by plural.
func byGroupResource(a, b *schemas.Resource) int {
	return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Plural, b.Plural))
}

// servedByKey is reg's served resources by cache key; under swapMu.
func (c *Served) servedByKey(reg *schemas.Registry) map[string][]*schemas.Resource {
	if reg == c.last.reg && reg != nil {
		return c.last.at
	}
	at := map[string][]*schemas.Resource{}
	if reg == nil {
		return at
	}
	for _, res := range reg.Resources() {
		if res.Served() {
			key := c.key(res)
			at[key] = append(at[key], res)
		}
	}
	return at
}

// changed reports whether a cache that served olds must end for next,
// which serves nexts from it: one of olds is declared differently, or is
// no longer served, or a resource joins the cache (its versions may be
// among those the cache's generation refuses).
func changed(olds, nexts []*schemas.Resource, next *schemas.Registry) bool {
	if len(olds) != len(nexts) {
		return true
	}
	for _, res := range olds {
		if nres := next.Resource(res.GroupResource()); !nres.Served() || !schemas.SameDeclaration(res, nres) {
			return true
		}
	}
	return false
}

// goneError ends the watches of a resource that is no longer served: a
// 410 Gone Status, so that a client-go informer lists again (and then
// learns from the 404 that the resource is gone).
func goneError(res *schemas.Resource) error {
	return apierrors.NewGone(fmt.Sprintf(
		"%s is no longer served: its schema was removed from the schema directory (its objects stay stored and are served again when it returns)",
		res.GroupResource()))
}

// versionsGone are the errors that end the watches of the versions old
// served and next does not, by apiVersion; all of them when next is not
// served (nil included).
func versionsGone(old, next *schemas.Resource) map[string]error {
	var gone map[string]error
	for _, rv := range old.Versions {
		if !rv.Served() {
			continue
		}
		var err error
		switch {
		case !next.Served():
			err = goneError(old)
		case next.Version(rv.Version) == nil || !next.Version(rv.Version).Served():
			err = versionGoneError(rv, next)
		default:
			continue
		}
		if gone == nil {
			gone = map[string]error{}
		}
		gone[rv.APIVersion()] = err
	}
	return gone
}

// versionGoneError ends the watches of a version that is no longer
// served while others of its resource are: a 410 Gone Status, as for a
// removed resource, that names where the objects are still served.
func versionGoneError(rv *schemas.ResourceVersion, next *schemas.Resource) error {
	var still []string
	for _, nrv := range next.Versions {
		if nrv.Served() {
			still = append(still, nrv.APIVersion())
		}
	}
	return apierrors.NewGone(fmt.Sprintf(
		"%s %s is no longer served: the version was removed from the schema directory or is not served (its objects stay stored and are served in %s)",
		rv.APIVersion(), rv.Resource.Plural, strings.Join(still, ", ")))
}
