package server

import (
	"context"
	"mime"
	"net/http"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// encoding is a negotiated response form.
type encoding struct {
	yaml     bool // YAML instead of JSON
	table    bool // a meta.k8s.io/v1 Table instead of the object
	protobuf bool // kube's protobuf, for the built-in kinds only
	// meta: a meta.k8s.io/v1 PartialObjectMetadata (or its List) of the
	// object, for any kind, as kube's metadata clients ask.
	meta bool
}

// mediaRange is one entry of an Accept header.
type mediaRange struct {
	typ    string // "application/json"
	params map[string]string
	q      float64
}

// parseAccept returns the media ranges of an Accept header, most preferred
// first (by q, then by order).
func parseAccept(header string) []mediaRange {
	parts := strings.Split(header, ",")
	out := make([]mediaRange, 0, len(parts))
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		typ, params, err := mime.ParseMediaType(p)
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		if q <= 0 {
			continue
		}
		out = append(out, mediaRange{typ: typ, params: params, q: q})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].q > out[j].q })
	return out
}

// negotiate picks the response form of an object of t read from the
// Accept header; allowTable says whether a Table may be served. ok is
// false when nothing acceptable is offered. Protobuf is offered for the
// kinds with Go types (hasProtobuf), as kube-apiserver offers it for its
// built-in resources and not for custom ones.
func negotiate(r *http.Request, t target, allowTable bool) (enc encoding, ok bool) {
	accept := r.Header.Get("Accept")
	switch accept { // the common cases, without parsing
	case "", contentTypeJSON, "*/*":
		return encoding{}, true
	}
	for _, m := range parseAccept(accept) {
		if enc, ok := acceptable(m, t, allowTable); ok {
			return enc, true
		}
	}
	return encoding{}, false
}

// acceptable reports whether specd can answer in m, and how. A Table or
// PartialObjectMetadata asked for in protobuf is passed over (kube would
// answer 406 for a protobuf Table, which has no protobuf form), so the
// client's next choice serves it.
func acceptable(m mediaRange, t target, allowTable bool) (encoding, bool) {
	as := m.params["as"]
	switch m.typ {
	case "*/*", "application/*":
		return encoding{}, true
	case contentTypeProtobuf:
		if isMeta(m) {
			return encoding{protobuf: true, meta: true}, allowTable
		}
		return encoding{protobuf: true}, as == "" && t.hasProtobuf()
	case contentTypeJSON, contentTypeYAML:
		enc := encoding{yaml: m.typ == contentTypeYAML}
		if as == "" {
			return enc, true
		}
		if isMeta(m) {
			enc.meta = true
			return enc, allowTable
		}
		enc.table = true
		return enc, as == "Table" && m.params["g"] == "meta.k8s.io" && m.params["v"] == "v1" && allowTable
	}
	return encoding{}, false
}

// isMeta reports whether m asks for PartialObjectMetadata, or its List,
// which kube serves for every kind on reads. Each name is taken for get,
// list and watch alike; the answer is the form of the verb.
func isMeta(m mediaRange) bool {
	as := m.params["as"]
	return (as == "PartialObjectMetadata" || as == "PartialObjectMetadataList") &&
		m.params["g"] == "meta.k8s.io" && m.params["v"] == "v1"
}

// protobufTargetKey holds, in a request's context, the target of a
// client that may take protobuf.
type protobufTargetKey struct{}

// withProtobufTarget keeps t in r's context when its client names
// protobuf in Accept, so that the Status of an error is in protobuf when
// that is the client's choice, as kube-apiserver negotiates errors. Other
// clients' requests are left as they are.
func withProtobufTarget(r *http.Request, t target) *http.Request {
	if !strings.Contains(r.Header.Get("Accept"), contentTypeProtobuf) || !t.hasProtobuf() {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), protobufTargetKey{}, t))
}

// statusInProtobuf reports whether the Status answering r is protobuf.
func statusInProtobuf(r *http.Request) bool {
	t, ok := r.Context().Value(protobufTargetKey{}).(target)
	if !ok {
		return false
	}
	enc, ok := negotiate(r, t, false)
	return ok && enc.protobuf
}

// notAcceptable is the 406 answer of kube-apiserver.
func notAcceptable(w http.ResponseWriter, r *http.Request) {
	writeStatus(w, r, failure(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable,
		"only the following media types are accepted: application/json, application/yaml"))
}

// wantsAggregated reports whether the client prefers aggregated discovery
// (apidiscovery.k8s.io/v2 APIGroupDiscoveryList) to the plain documents.
func wantsAggregated(r *http.Request) bool {
	accept := r.Header.Get("Accept")
	if !strings.Contains(accept, "apidiscovery.k8s.io") {
		return false
	}
	for _, m := range parseAccept(accept) {
		if m.typ == "*/*" || m.typ == "application/*" {
			return false
		}
		if m.typ != contentTypeJSON {
			continue
		}
		if m.params["as"] == "" {
			return false // plain JSON preferred
		}
		if m.params["g"] == "apidiscovery.k8s.io" && m.params["v"] == "v2" && m.params["as"] == "APIGroupDiscoveryList" {
			return true
		}
	}
	return false
}
