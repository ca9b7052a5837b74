package server

import "net/http"

// list serves a <Kind>List of a namespace, of all namespaces, or of a
// cluster-scoped resource, as JSON, YAML, protobuf or a Table; the items
// of a built-in kind's list without apiVersion and kind, as kube's.
func (s *Server) list(w http.ResponseWriter, r *http.Request, t target) {
	q := r.URL.Query()
	if isWatch(q) {
		s.watch(w, r, t)
		return
	}
	enc, ok := negotiate(r, t, true)
	if !ok {
		notAcceptable(w, r)
		return
	}
	req, err := listRequest(t.Version, q)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	list, err := s.cfg.Store.List(r.Context(), t.Ref, req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if enc.table {
		s.writeTable(w, r, enc, t.Version, list, true)
		return
	}
	switch {
	case enc.meta:
		list = partialList(list)
	case !enc.protobuf && t.hasProtobuf():
		list = typedList(list)
	}
	s.writeObject(w, r, http.StatusOK, enc, list)
}
