package server

// The verbs specd serves, as discovery publishes them. Grow these lists with
// the handlers: a verb appears here when its route answers it.
var (
	// resourceVerbs are served on a resource's main endpoint.
	resourceVerbs = []string{"create", "delete", "get", "list", "update"}
	// statusVerbs are served on the status subresource.
	statusVerbs = []string{"get", "update"}
)
