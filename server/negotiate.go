package server

import (
	"mime"
	"net/http"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// encoding is a negotiated response form.
type encoding struct {
	yaml  bool // YAML instead of JSON
	table bool // a meta.k8s.io/v1 Table instead of the object
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

// negotiate picks the response form of an object read from the Accept
// header; allowTable says whether a Table may be served. ok is false when
// nothing acceptable is offered.
func negotiate(r *http.Request, allowTable bool) (enc encoding, ok bool) {
	accept := r.Header.Get("Accept")
	switch accept { // the common cases, without parsing
	case "", contentTypeJSON, "*/*":
		return encoding{}, true
	}
	for _, m := range parseAccept(accept) {
		switch m.typ {
		case "*/*", "application/*":
			return encoding{}, true
		case contentTypeJSON, contentTypeYAML:
			enc := encoding{yaml: m.typ == contentTypeYAML}
			switch as := m.params["as"]; {
			case as == "":
				return enc, true
			case as == "Table" && m.params["g"] == "meta.k8s.io" && m.params["v"] == "v1" && allowTable:
				enc.table = true
				return enc, true
			}
		}
	}
	return encoding{}, false
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
