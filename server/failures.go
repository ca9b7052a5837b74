package server

import (
	"log/slog"
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/specd-io/specd/internal/metrics"
	"github.com/specd-io/specd/schemas"
)

// serverErrors counts the answers with a 5xx code. Every label is bounded:
// verbs are kube's eight (or the method of a non-resource path), resources
// are the registry's.
var serverErrors = promauto.With(metrics.Registry).NewCounterVec(prometheus.CounterOpts{
	Name: "specd_http_server_errors_total",
	Help: "Requests answered with a 5xx code, by code, verb, resource (plural.group) and subresource.",
}, []string{"code", "verb", "resource", "subresource"})

// reportFailure logs a request answered with a 5xx code, once, at error
// level, and counts it: the client sees only the Status, so the log is
// where the cause (the whole wrapped chain) is kept.
func (s *Server) reportFailure(r *http.Request, code int, err error) {
	info := newRequestInfo(s.cfg.Registry(), r)
	serverErrors.WithLabelValues(strconv.Itoa(code), info.verb, info.resource, info.subresource).Inc()
	s.log.LogAttrs(r.Context(), slog.LevelError, "server error",
		slog.Int("code", code),
		slog.String("verb", info.verb),
		slog.String("resource", info.resource),
		slog.String("subresource", info.subresource),
		slog.String("path", r.URL.Path),
		slog.Any("err", err))
}

// requestInfo names what a request asked for, as kube-apiserver's
// RequestInfo does: the verb, and on a resource path the resource
// (plural.group) and subresource.
type requestInfo struct {
	verb, resource, subresource string
}

// newRequestInfo reads the path again instead of carrying what
// serveResource resolved: only failed requests pay for it.
func newRequestInfo(reg *schemas.Registry, r *http.Request) requestInfo {
	t, ok := resourceTarget(reg, r.URL.Path)
	if !ok {
		return requestInfo{verb: methodVerb(r.Method)}
	}
	return requestInfo{verb: resourceVerb(r, t), resource: t.Version.Resource.GroupResource(), subresource: t.Subresource}
}

// resourceTarget resolves a path under /apis/G/V/ or /api/V/ as
// serveResource does.
func resourceTarget(reg *schemas.Registry, path string) (target, bool) {
	if reg == nil {
		return target{}, false
	}
	p, ok := splitResourcePath(path)
	if !ok {
		return target{}, false
	}
	t, _, ok := resolve(reg, p.group, p.version, p.rest, nil)
	return t, ok
}

// resourceVerb is kube's verb of a request on a resource path.
func resourceVerb(r *http.Request, t target) string {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		switch {
		case t.Name != "":
			// A named GET is a get even with ?watch, as dispatch serves it.
			return "get"
		case isWatch(r.URL.Query()):
			return "watch"
		}
		return "list"
	case http.MethodDelete:
		if t.Name == "" {
			return "deletecollection"
		}
		return "delete"
	}
	return methodVerb(r.Method)
}

// methodVerb is kube's verb of a method; any other method is "other",
// which keeps the verb label bounded.
func methodVerb(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		return "get"
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	}
	return "other"
}
