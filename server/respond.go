package server

import (
	"net/http"
	"strconv"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"sigs.k8s.io/yaml"

	"github.com/specd-io/specd/server/auditlog"
)

const (
	contentTypeJSON = "application/json"
	contentTypeYAML = "application/yaml"
)

// writeJSON writes body as it is with code.
func writeJSON(w http.ResponseWriter, code int, body []byte) {
	writeBody(w, code, contentTypeJSON, body)
}

func writeBody(w http.ResponseWriter, code int, contentType string, body []byte) {
	h := w.Header()
	h["Content-Type"] = []string{contentType}
	if _, set := h["Cache-Control"]; !set {
		h["Cache-Control"] = []string{"no-cache, private"}
	}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// writeObject writes JSON bytes from the engine in the negotiated encoding:
// as they are for JSON, converted for YAML and protobuf.
func (s *Server) writeObject(w http.ResponseWriter, r *http.Request, code int, enc encoding, body []byte) {
	auditlog.LogResponseObject(r.Context(), body)
	if !enc.yaml && !enc.protobuf {
		writeJSON(w, code, body)
		return
	}
	contentType, convert := contentTypeYAML, yaml.JSONToYAML
	if enc.protobuf {
		contentType, convert = contentTypeProtobuf, jsonToProtobuf
	}
	out, err := convert(body)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeBody(w, code, contentType, out)
}

// addWarnings adds one Warning header per message, formatted as
// kube-apiserver does: 299 - "text", with quotes and backslashes escaped.
func addWarnings(w http.ResponseWriter, warnings []string) {
	for _, text := range warnings {
		v, err := utilnet.NewWarningHeader(299, "-", text)
		if err != nil {
			continue // not representable in a header (control characters)
		}
		w.Header().Add("Warning", v)
	}
}
