package watchcache

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/schemas"
)

// BeforeSwap lets every reload through: the caches follow it after the
// swap.
func (c *Served) BeforeSwap(context.Context, *schemas.Registry, *schemas.Registry) error { return nil }

// AfterSwap ends the caches of the resources old and next declare
// differently, and serves again those next serves and old did not.
func (c *Served) AfterSwap(_ context.Context, old, next *schemas.Registry) {
	for _, res := range old.Resources() {
		nres := next.Resource(res.GroupResource())
		switch {
		case !nres.Served():
			// Its watches end with an ERROR event; its objects stay.
			c.end(c.key(res), goneError(res), nil)
		case !schemas.SameDeclaration(res, nres):
			// A watch must not go on with the old schema or rules, nor a
			// new one be served events converted under them: as
			// kube-apiserver does when a CRD changes, the cache stops
			// and its watchers watch again; the cache starts again at
			// the revision they watch from, so they miss nothing. Those
			// of a version no longer served get an ERROR event instead.
			c.end(c.key(res), nil, versionsGone(res, nres))
		}
	}
	for _, res := range next.Resources() {
		if old.Resource(res.GroupResource()).Served() || !res.Served() {
			continue
		}
		// New, or back: its objects (kept in storage) are served again;
		// its cache starts on first use.
		c.revive(c.key(res))
	}
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
// served and next does not, by version.
func versionsGone(old, next *schemas.Resource) map[string]error {
	var gone map[string]error
	for _, rv := range old.Versions {
		if !rv.Served() {
			continue
		}
		if nrv := next.Version(rv.Version); nrv != nil && nrv.Served() {
			continue
		}
		if gone == nil {
			gone = map[string]error{}
		}
		gone[rv.Version] = versionGoneError(rv, next)
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
