package server

// The verbs specd serves, as discovery and the OpenAPI documents publish
// them. Grow these lists with the handlers: a verb appears here when its
// route answers it.
var (
	// resourceVerbs are served on a resource's main endpoint.
	resourceVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	// statusVerbs are served on the status subresource.
	statusVerbs = []string{"get", "patch", "update"}
)
