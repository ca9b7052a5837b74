package server

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"
	"github.com/munnerz/goautoneg"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/server/openapi"
)

// The OpenAPI endpoints, answered as kube-apiserver's kube-openapi
// handlers answer them (handler and handler3): an ETag on every document
// and If-None-Match answered with 304; in the v3 index each group
// version's URL carries the hash of its document, a request with the
// current hash may cache the answer for good (Cache-Control: public,
// immutable) and one with an old hash is redirected to the current one.
// JSON, or gnostic's protobuf form, which client-go asks for.
//
// kube-openapi's handlers are not used themselves: they take kube-openapi's
// spec types, into which specd would have to convert its documents (and
// OpenAPI 3.0 schemas do not all fit kube's Swagger-flavoured
// spec.Schema), they keep state that has to be told of every reload,
// where specd swaps one snapshot, and they answer errors with empty
// bodies instead of a Status.

const (
	protoV2 = "com.github.proto-openapi.spec.v2.v1.0+protobuf"
	protoV3 = "com.github.proto-openapi.spec.v3.v1.0+protobuf"
	// The older names of the same, which client-go sends for v2.
	protoV2Old = "com.github.proto-openapi.spec.v2@v1.0+protobuf"
	protoV3Old = "com.github.proto-openapi.spec.v3@v1.0+protobuf"
)

func (s *Server) serveOpenAPIIndex(w http.ResponseWriter, r *http.Request) {
	s.serveOpenAPIDoc(w, r, s.snapshot(r.Context()).openapi.Index(), true, "")
}

// serveOpenAPIGroupVersion answers /openapi/v3/apis/G/V.
func (s *Server) serveOpenAPIGroupVersion(w http.ResponseWriter, r *http.Request) {
	v := mux.Vars(r)
	doc, ok := s.snapshot(r.Context()).openapi.GroupVersion(v["group"], v["version"])
	if !ok {
		writeStatus(w, r, notFoundStatus())
		return
	}
	w.Header().Set("Vary", "Accept")
	asJSON, ok := negotiateOpenAPI(r, protoV3, protoV3Old)
	if !ok {
		openapiNotAcceptable(w, r, protoV3)
		return
	}
	if hash := r.URL.Query().Get("hash"); hash != "" {
		if hash != doc.Hash() {
			http.Redirect(w, r, openapi.HashedURL(v["group"], v["version"], doc.Hash()), http.StatusMovedPermanently)
			return
		}
		w.Header().Set("Cache-Control", "public, immutable")
		w.Header().Set("Expires", s.cfg.Now().AddDate(1, 0, 0).UTC().Format(http.TimeFormat))
	}
	s.serveOpenAPIDoc(w, r, doc, asJSON, protoV3)
}

// serveOpenAPIV2 answers /openapi/v2: one Swagger 2.0 document.
func (s *Server) serveOpenAPIV2(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Vary", "Accept")
	asJSON, ok := negotiateOpenAPI(r, protoV2, protoV2Old)
	if !ok {
		openapiNotAcceptable(w, r, protoV2)
		return
	}
	s.serveOpenAPIDoc(w, r, s.snapshot(r.Context()).openapi.Swagger(), asJSON, protoV2)
}

// serveOpenAPIDoc writes doc as JSON or protobuf, with its ETag;
// http.ServeContent answers If-None-Match (304) and HEAD.
func (s *Server) serveOpenAPIDoc(w http.ResponseWriter, r *http.Request, doc *openapi.Document, asJSON bool, protoSubtype string) {
	body, contentType := doc.JSON(), contentTypeJSON
	if !asJSON {
		b, err := doc.Protobuf()
		if err != nil {
			s.writeError(w, r, fmt.Errorf("encoding OpenAPI as protobuf: %w", err))
			return
		}
		body, contentType = b, "application/"+protoSubtype
	}
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Etag", `"`+doc.Hash()+`"`)
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "no-cache, private")
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// negotiateOpenAPI picks JSON (asJSON) or protobuf (one of protoSubtypes)
// from the Accept header, as kube-openapi's handlers do: the first
// acceptable media range in the client's order of preference wins.
func negotiateOpenAPI(r *http.Request, protoSubtypes ...string) (asJSON, ok bool) {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return true, true
	}
	for _, c := range goautoneg.ParseAccept(accept) {
		if c.Type != "application" && c.Type != "*" {
			continue
		}
		if c.SubType == "json" || c.SubType == "*" {
			return true, true
		}
		for _, p := range protoSubtypes {
			if strings.EqualFold(c.SubType, p) {
				return false, true
			}
		}
	}
	return false, false
}

func openapiNotAcceptable(w http.ResponseWriter, r *http.Request, protoSubtype string) {
	writeStatus(w, r, failure(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable,
		"only the following media types are accepted: application/json, application/"+protoSubtype))
}
