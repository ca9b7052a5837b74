package server

import (
	"context"
	"net/http"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

// collectionDeleter is what deletecollection needs from the store.
// *engine.Store satisfies it.
type collectionDeleter interface {
	DeleteCollection(ctx context.Context, rv *schemas.ResourceVersion, namespace string, req engine.ListRequest, opts engine.DeleteOptions) ([]byte, error)
}

var _ collectionDeleter = (*engine.Store)(nil)

// deleteCollection serves DELETE on a collection: the objects a list with
// the same query (labelSelector, fieldSelector, limit, continue,
// resourceVersion) selects are deleted, and the answer is the list of them
// as they were, as kube-apiserver answers for a custom resource; with
// limit, one page of them and the token of the next.
func (s *Server) deleteCollection(w http.ResponseWriter, r *http.Request, t target) {
	store, ok := s.cfg.Store.(collectionDeleter)
	if !ok {
		writeStatus(w, r, methodNotAllowedStatus(r.Method, t.rv.Resource.GroupResource()))
		return
	}
	enc, ok := negotiate(r, t, false)
	if !ok {
		notAcceptable(w, r)
		return
	}
	req, err := listRequest(t.rv, r.URL.Query())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	opts, err := deleteOptions(r, t, s.cfg.MaxBodyBytes)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	list, err := store.DeleteCollection(r.Context(), t.rv, t.namespace, req, opts)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeObject(w, r, http.StatusOK, enc, list)
}
