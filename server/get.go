package server

import "net/http"

// get serves one object (also through the status subresource), as JSON,
// YAML, a Table or its PartialObjectMetadata.
func (s *Server) get(w http.ResponseWriter, r *http.Request, t target) {
	enc, ok := negotiate(r, t, true)
	if !ok {
		notAcceptable(w, r)
		return
	}
	obj, err := s.cfg.Store.Get(r.Context(), t.Ref)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if enc.table {
		s.writeTable(w, r, enc, t.Version, obj, false)
		return
	}
	if enc.meta {
		obj = partialObject(obj)
	}
	s.writeObject(w, r, http.StatusOK, enc, obj)
}
