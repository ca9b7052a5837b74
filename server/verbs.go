package server

import (
	"slices"

	"github.com/specd-io/specd/schemas"
)

// The verbs specd serves, as discovery and the OpenAPI documents publish
// them. Grow these lists with the handlers: a verb appears here when its
// route answers it.
var (
	// resourceVerbs are served on a resource's main endpoint.
	resourceVerbs = schemas.AllVerbs
	// statusVerbs are served on the status subresource.
	statusVerbs = []string{"get", "patch", "update"}
	// updateOnlyVerbs are served on a store's own subresources
	// (engine.Strategy.Subresources: a Namespace's finalize).
	updateOnlyVerbs = []string{"update"}
)

// verbsOf are the verbs r's main endpoint serves: those specd's routes
// answer that r's schema lists (x-specd-resource verbs; all by default).
func verbsOf(r *schemas.Resource) []string {
	return r.ServedVerbs()
}

// terminatingVerbs are what discovery lists for a resource whose CRD is
// being deleted, as kube-apiserver's does. Only discovery changes: a
// create gets 403 from the engine, and updates and patches still work,
// so that finalizers can be removed.
var terminatingVerbs = []string{"delete", "deletecollection", "get", "list", "watch"}

// discoveryVerbs are the verbs discovery lists for r.
func discoveryVerbs(r *schemas.Resource) []string {
	if !r.Terminating {
		return verbsOf(r)
	}
	var out []string
	for _, v := range verbsOf(r) {
		if slices.Contains(terminatingVerbs, v) {
			out = append(out, v)
		}
	}
	return out
}

// subresourcesOf returns the update-only subresources a store serves for
// a resource, sorted; nil for none.
type subresourcesOf func(*schemas.Resource) []string
