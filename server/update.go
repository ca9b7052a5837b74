package server

import (
	"context"
	"net/http"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

// subresourceUpdater serves the update-only subresources a store has
// beyond status and scale (engine.Strategy.Subresources: a Namespace's
// finalize).
type subresourceUpdater interface {
	ServesSubresource(r *schemas.Resource, subresource string) bool
	Subresources(r *schemas.Resource) []string
	UpdateSubresource(ctx context.Context, rv *schemas.ResourceVersion, namespace, name, subresource string, body []byte, opts engine.WriteOptions) (engine.Result, error)
}

var _ subresourceUpdater = (*engine.Store)(nil)

// servesSubresource reports whether the store serves subresource of r.
func (s *Server) servesSubresource(r *schemas.Resource, subresource string) bool {
	u, ok := s.cfg.Store.(subresourceUpdater)
	return ok && u.ServesSubresource(r, subresource)
}

// storeSubresources returns the update-only subresources the store
// serves for r (none when the store has no such subresources).
func (s *Server) storeSubresources(r *schemas.Resource) []string {
	if u, ok := s.cfg.Store.(subresourceUpdater); ok {
		return u.Subresources(r)
	}
	return nil
}

// update serves PUT on an object, its status, or a subresource of the
// store's own (subresourceUpdater): 200 and the stored object.
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
	switch t.subresource {
	case "":
	case "status":
		replace = s.cfg.Store.UpdateStatus
	default:
		replace = func(ctx context.Context, rv *schemas.ResourceVersion, namespace, name string, body []byte, opts engine.WriteOptions) (engine.Result, error) {
			return s.cfg.Store.(subresourceUpdater).UpdateSubresource(ctx, rv, namespace, name, t.subresource, body, opts)
		}
	}
	res, err := replace(r.Context(), t.rv, t.namespace, t.name, body, opts)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	addWarnings(w, res.Warnings)
	s.writeObject(w, r, http.StatusOK, enc, res.Object)
}
