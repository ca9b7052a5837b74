package server

import "net/http"

// update serves PUT on an object or its status: 200 and the stored object.
func (s *Server) update(w http.ResponseWriter, r *http.Request, t target) {
	body, problems, enc, ok := s.readWrite(w, r, t)
	if !ok {
		return
	}
	opts, err := writeOptions(r.URL.Query(), "UpdateOptions")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	opts.FieldManager = managerOrUserAgent(opts.FieldManager, r.UserAgent())
	opts.BodyProblems = problems
	replace := s.cfg.Store.Update
	if t.subresource == "status" {
		replace = s.cfg.Store.UpdateStatus
	}
	res, err := replace(r.Context(), t.rv, t.namespace, t.name, body, opts)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	addWarnings(w, res.Warnings)
	s.writeObject(w, r, http.StatusOK, enc, res.Object)
}
