package server

import (
	"net/http"
	"slices"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

// servesSubresource reports whether the store serves subresource of r
// beyond status and scale (engine.Subresources).
func (s *Server) servesSubresource(r *schemas.Resource, subresource string) bool {
	return slices.Contains(s.cfg.Store.Subresources(r), subresource)
}

// update serves PUT on an object, its status, or a subresource of the
// store's own (engine.Subresources): 200 and the stored object.
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
	res, err := s.cfg.Store.Update(r.Context(), engine.WriteRequest{Ref: t.Ref, Body: body, Options: opts})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	addWarnings(w, res.Warnings)
	s.writeObject(w, r, http.StatusOK, enc, res.Object)
}
