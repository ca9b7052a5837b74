package server

import "net/http"

// delete serves DELETE on an object: 200 and what the engine answers (a
// Success Status, or the object while finalizers hold it).
func (s *Server) delete(w http.ResponseWriter, r *http.Request, t target) {
	enc, ok := negotiate(r, t, false)
	if !ok {
		notAcceptable(w, r)
		return
	}
	opts, err := deleteOptions(r, t, s.cfg.MaxBodyBytes)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.cfg.Store.Delete(r.Context(), t.Ref, opts)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	addWarnings(w, res.Warnings)
	s.writeObject(w, r, http.StatusOK, enc, res.Object)
}
