package server

import (
	"mime"
	"net/http"
)

// patchMediaTypes are the patch formats kube-apiserver accepts for a
// custom resource, as its 415 names them.
const patchMediaTypes = "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"

// patch answers PATCH until patches are served: 415 for a body that is no
// patch format, as kube-apiserver does, else 405.
func (s *Server) patch(w http.ResponseWriter, r *http.Request, t target) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml":
		writeStatus(w, methodNotAllowedStatus(r.Method, t.rv.Resource.GroupResource()))
	default:
		s.writeError(w, r, unsupportedMediaType(patchMediaTypes))
	}
}
