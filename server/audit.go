package server

import (
	"net/http"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/specd-io/specd/server/auditlog"
)

// auditRequest adds a write's body (JSON) to the request's audit event,
// as kube-apiserver does once it has decoded the body: a create's objectRef
// gets its name there, and levels Request and up keep the body.
func auditRequest(r *http.Request, t target, body []byte) {
	gvr := schema.GroupVersionResource{Group: t.Version.Resource.Group, Version: t.Version.Version, Resource: t.Version.Resource.Plural}
	auditlog.LogRequestObject(r.Context(), gvr, t.Subresource, body)
}
