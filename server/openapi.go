package server

import (
	"crypto/sha512"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"github.com/specd-io/specd/schemas"
)

// openapiDoc is one encoded OpenAPI v3 document of a group version.
type openapiDoc struct {
	body []byte
	hash string // upper-case hex SHA-512 of body, as kube-apiserver's
}

// openapiIndex is /openapi/v3: where each group version's document is.
type openapiIndex struct {
	Paths map[string]openapiIndexEntry `json:"paths"`
}

type openapiIndexEntry struct {
	ServerRelativeURL string `json:"serverRelativeURL"`
}

// openapiDocs builds the document of every served group version and the
// index that points to them.
func openapiDocs(reg *schemas.Registry) (map[string]openapiDoc, []byte) {
	docs := make(map[string]openapiDoc)
	index := openapiIndex{Paths: make(map[string]openapiIndexEntry)}
	for _, g := range reg.Groups() {
		for _, gv := range g.ServedVersions() {
			body := mustJSON(groupVersionOpenAPI(gv))
			sum := sha512.Sum512(body)
			doc := openapiDoc{body: body, hash: strings.ToUpper(hex.EncodeToString(sum[:]))}
			key := gv.Group + "/" + gv.Version
			docs[key] = doc
			index.Paths["apis/"+key] = openapiIndexEntry{ServerRelativeURL: "/openapi/v3/apis/" + key + "?hash=" + doc.hash}
		}
	}
	return docs, mustJSON(index)
}

func (s *Server) serveOpenAPIIndex(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.snapshot().openapiIndex)
}

// serveOpenAPIGroupVersion answers /openapi/v3/apis/G/V with an ETag; a
// request that names the current hash may cache the answer for good.
func (s *Server) serveOpenAPIGroupVersion(w http.ResponseWriter, r *http.Request) {
	v := mux.Vars(r)
	doc, ok := s.snapshot().openapi[v["group"]+"/"+v["version"]]
	if !ok {
		writeStatus(w, notFoundStatus())
		return
	}
	etag := `"` + doc.hash + `"`
	h := w.Header()
	h.Set("Etag", etag)
	h.Set("Vary", "Accept")
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if r.URL.Query().Get("hash") == doc.hash {
		h.Set("Cache-Control", "public, immutable")
	}
	writeJSON(w, http.StatusOK, doc.body)
}
