package server

import (
	"net/http"

	"github.com/specd-io/specd/engine"
)

// create serves POST on a collection: 201 and the stored object.
func (s *Server) create(w http.ResponseWriter, r *http.Request, t target) {
	body, problems, enc, ok := s.readWrite(w, r, t)
	if !ok {
		return
	}
	opts, err := writeOptions(r.URL.Query(), "CreateOptions")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	opts.FieldManager = managerOrUserAgent(opts.FieldManager, r.UserAgent())
	opts.BodyProblems = problems
	res, err := s.cfg.Store.Create(r.Context(), engine.WriteRequest{Ref: t.Ref, Body: body, Options: opts})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	addWarnings(w, res.Warnings)
	s.writeObject(w, r, http.StatusCreated, enc, res.Object)
}

// readWrite does what every write does first, in kube-apiserver's order:
// negotiate the response, check the body's media type (415), read it
// within the size limit (413), and add it to the audit event. ok is false
// when it has answered already.
func (s *Server) readWrite(w http.ResponseWriter, r *http.Request, t target) (body []byte, problems []error, enc encoding, ok bool) {
	enc, ok = negotiate(r, t, false)
	if !ok {
		notAcceptable(w, r)
		return nil, nil, enc, false
	}
	mt, err := bodyMediaType(r, t.hasProtobuf())
	if err == nil {
		body, problems, err = readBody(r, mt, s.cfg.MaxBodyBytes)
	}
	if err != nil {
		s.writeError(w, r, err)
		return nil, nil, enc, false
	}
	if t.hasProtobuf() {
		body = withTypeMeta(body, t.Version)
	}
	auditRequest(r, t, body)
	return body, problems, enc, true
}
