// Package openapi builds the OpenAPI documents specd publishes from one
// schemas.Registry snapshot: the OpenAPI 3.0 document of each served group
// version, the index that points to them, and the one Swagger 2.0
// document of everything, each as JSON with its hash and, on demand, in
// gnostic's protobuf form.
//
// It knows nothing of HTTP: the server negotiates the media type, answers
// ETags and hashes, and tells it which verbs its routes serve.
package openapi
