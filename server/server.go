package server

import (
	"context"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/gorilla/mux"
	"k8s.io/apimachinery/pkg/version"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/internal/metrics"
	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/schemas"
)

// DefaultMaxBodyBytes is the largest request body specd reads, as
// kube-apiserver's default (3 MiB); the engine bounds a patch's result by
// the same limit.
const DefaultMaxBodyBytes = engine.DefaultMaxBodyBytes

// Config is everything the HTTP server needs; cmd/specd fills it.
type Config struct {
	// Registry returns the current schema snapshot. Each request calls it
	// once and uses that one snapshot throughout. Required.
	Registry func() *schemas.Registry
	// Store serves the objects. Required.
	Store engine.Objects
	// Ready reports whether specd can serve (storage reachable, schemas
	// loaded); /readyz answers 503 until it is true. Nil means always ready.
	Ready func() bool
	// Logger gets one debug line per request, and one error line for every
	// answer with a 5xx code, with its verb, resource and cause.
	// slog.Default() when nil.
	Logger *slog.Logger
	// Version is served at /version. GitVersion should be a semantic
	// version ("v0.1.0"); Major and Minor are derived from it when empty,
	// and the Go fields are filled from the running binary.
	Version version.Info
	// MaxBodyBytes limits request bodies; DefaultMaxBodyBytes when 0.
	MaxBodyBytes int64
	// Now is the clock used for Table ages; time.Now when nil.
	Now func() time.Time
	// Checks are more lines of /readyz?verbose (health.go).
	Checks []Check
	// PluginChecks, when set, adds informational lines made at each
	// request, for the plugins, which come and go with their directory: a
	// plugin that is down does not make specd unready (kube-apiserver
	// stays ready while a webhook is down).
	PluginChecks func() []hook.ReadyCheck
	// Profiling serves the Go runtime's profiles under /debug/pprof/
	// (profiling.go), as kube-apiserver's --profiling.
	Profiling bool
	// MinRequestTimeout is kube-apiserver's --min-request-timeout: a
	// watch without timeoutSeconds ends at a random time between it and
	// twice it, so that clients spread their re-watches.
	// DefaultMinRequestTimeout when 0; NoMinRequestTimeout is kube's
	// --min-request-timeout 0.
	MinRequestTimeout time.Duration
	// WatchWriteTimeout is how long writing to a watch may block before
	// the stream is cut off and its connection closed: a client that
	// stopped reading. DefaultWatchWriteTimeout when 0; negative for
	// none.
	WatchWriteTimeout time.Duration
	// Extra are groups served by handlers of their own (extra.go), listed
	// in discovery before the schemas' groups.
	Extra []ExtraGroup
	// Console, when set, serves /console/ (server/console); nil turns
	// the console off (--console=false).
	Console http.Handler
	// Installed, when set, is asked about a request for a resource that
	// the registry holds but does not serve, its CRD not yet Established
	// (schemas.Resource.Installing): it returns a registry that serves
	// it, once storage says the CRD is Established, or nil (404).
	Installed func(context.Context, *schemas.Resource) *schemas.Registry
}

// Server is specd's http.Handler.
type Server struct {
	cfg     Config
	log     *slog.Logger
	router  *mux.Router
	handler http.Handler
	version []byte // the /version document
	cache   atomic.Pointer[snapshot]
	watches watches
}

// New returns the HTTP handler of specd.
func New(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Ready == nil {
		cfg.Ready = func() bool { return true }
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.WatchWriteTimeout == 0 {
		cfg.WatchWriteTimeout = DefaultWatchWriteTimeout
	}
	if cfg.MinRequestTimeout == 0 {
		cfg.MinRequestTimeout = DefaultMinRequestTimeout
	}
	s := &Server{cfg: cfg, log: cfg.Logger}
	s.version = versionDocument(cfg.Version)
	s.router = s.routes()
	s.handler = s.withLogging(http.HandlerFunc(s.route))
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.handler.ServeHTTP(w, r)
}

func (s *Server) routes() *mux.Router {
	r := mux.NewRouter()
	// Answer paths as they are sent, as kube-apiserver does: no redirects.
	r.SkipClean(true)
	r.NotFoundHandler = http.HandlerFunc(s.notFound)
	r.MethodNotAllowedHandler = http.HandlerFunc(s.methodNotAllowed)

	r.HandleFunc("/healthz", getOnly(s.healthz))
	r.HandleFunc("/livez", getOnly(s.healthz))
	r.HandleFunc("/readyz", getOnly(s.readyz))
	r.HandleFunc("/version", getOnly(s.serveVersion))
	r.Handle("/metrics", getOnly(metrics.Handler().ServeHTTP))

	// Discovery, also with a trailing slash, as kube-apiserver serves it
	// (kube's e2e suite reads /apis/ and /apis/GROUP/).
	for _, slash := range []string{"", "/"} {
		r.HandleFunc("/api"+slash, getOnly(s.serveLegacyAPI))
		r.HandleFunc("/api/{version}"+slash, getOnly(s.serveGroupVersion))
		r.HandleFunc("/apis"+slash, getOnly(s.serveAPIs))
		r.HandleFunc("/apis/{group}"+slash, getOnly(s.serveGroup))
		r.HandleFunc("/apis/{group}/{version}"+slash, getOnly(s.serveGroupVersion))
	}

	r.HandleFunc("/openapi/v2", getOnly(s.serveOpenAPIV2))
	r.HandleFunc("/openapi/v3", getOnly(s.serveOpenAPIIndex))
	r.HandleFunc("/openapi/v3/api/{version}", getOnly(s.serveOpenAPIGroupVersion))
	r.HandleFunc("/openapi/v3/apis/{group}/{version}", getOnly(s.serveOpenAPIGroupVersion))

	if s.cfg.Profiling {
		routeProfiling(r)
	}
	if s.cfg.Console != nil {
		r.PathPrefix("/console/").Handler(s.cfg.Console)
	}
	s.routeExtras(r)
	return r
}

// route sends a resource path (/api/V/REST, /apis/G/V/REST) straight to
// serveResource, split by its slashes, and every other path to the
// router: the resource paths are nearly every request, and the router's
// regular expressions and the context its variables ride in cost more
// than the whole split.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	p, ok := splitResourcePath(r.URL.Path)
	if !ok || s.isExtra(p.group, p.version) {
		s.router.ServeHTTP(w, r)
		return
	}
	s.serveResource(w, r, p)
}

// getOnly answers methods other than GET (and HEAD) with 405.
func getOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeStatus(w, r, methodNotAllowedStatus(r.Method, ""))
			return
		}
		h(w, r)
	}
}
