package server

import (
	"net/http"
)

// deleteCollection serves DELETE on a collection: the objects a list with
// the same query (labelSelector, fieldSelector, limit, continue,
// resourceVersion) selects are deleted, and the answer is the list of them
// as they were, as kube-apiserver answers for a custom resource; with
// limit, one page of them and the token of the next.
func (s *Server) deleteCollection(w http.ResponseWriter, r *http.Request, t target) {
	enc, ok := negotiate(r, t, false)
	if !ok {
		notAcceptable(w, r)
		return
	}
	req, err := listRequest(t.Version, r.URL.Query())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	opts, err := deleteOptions(r, t, s.cfg.MaxBodyBytes)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	list, err := s.cfg.Store.DeleteCollection(r.Context(), t.Ref, req, opts)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeObject(w, r, http.StatusOK, enc, list)
}
