package server

import "github.com/specd-io/specd/schemas"

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

// subresourcesOf returns the update-only subresources a store serves for
// a resource, sorted; nil for none.
type subresourcesOf func(*schemas.Resource) []string
