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
	oldAt := c.servedByKey(old)
	nextAt, touched := c.follow(old, oldAt, next)
	c.last = servedIndex{reg: next, at: nextAt}
	for key := range touched {
		olds, nexts := oldAt[key], nextAt[key]
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
	for key := range touched {
		if len(oldAt[key]) == 0 && len(nextAt[key]) > 0 {
			// New, or back: its objects (kept in storage) are served
			// again; its cache starts on first use.
			c.revive(key)
		}
	}
}

// follow returns next's served resources by cache key, and the keys
// whose resources may differ from old's (oldAt): with old's index at
// hand, only those of the resources that the reload changed
// (schemas.EachChanged), so that a reload beside thousands of CRDs costs
// what it changed; otherwise every key. Under swapMu.
func (c *Served) follow(old *schemas.Registry, oldAt map[string][]*schemas.Resource, next *schemas.Registry) (map[string][]*schemas.Resource, map[string]bool) {
	if old == nil || old != c.last.reg {
		nextAt := c.servedByKey(next)
		touched := make(map[string]bool, len(oldAt)+len(nextAt))
		for key := range oldAt {
			touched[key] = true
		}
		for key := range nextAt {
			touched[key] = true
		}
		return nextAt, touched
	}
	nextAt, touched := maps.Clone(oldAt), map[string]bool{}
	schemas.EachChanged(old, next, func(o, n *schemas.Resource) {
		if o.Served() {
			key := c.key(o)
			nextAt[key], touched[key] = slices.DeleteFunc(slices.Clone(nextAt[key]), func(r *schemas.Resource) bool { return r == o }), true
		}
		if n.Served() {
			key := c.key(n)
			nextAt[key], touched[key] = append(slices.Clip(nextAt[key]), n), true
		}
	})
	for key := range touched {
		if len(nextAt[key]) == 0 {
			delete(nextAt, key)
		} else {
			slices.SortFunc(nextAt[key], byGroupResource)
		}
	}
	return nextAt, touched
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
