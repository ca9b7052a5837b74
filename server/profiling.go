package server

import (
	"net/http/pprof"

	"github.com/gorilla/mux"
)

// routeProfiling serves the Go runtime's profiles under /debug/pprof/, as
// kube-apiserver does with --profiling (its default). They sit behind
// authentication and authorization like every non-resource URL: the
// admin (system:masters) may read them, anyone else needs a ClusterRole
// with nonResourceURLs ["/debug/pprof/*"].
func routeProfiling(r *mux.Router) {
	r.HandleFunc("/debug/pprof/cmdline", getOnly(pprof.Cmdline))
	r.HandleFunc("/debug/pprof/profile", getOnly(pprof.Profile))
	r.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	r.HandleFunc("/debug/pprof/trace", getOnly(pprof.Trace))
	// The index, and every named profile (heap, goroutine, allocs...).
	r.PathPrefix("/debug/pprof/").HandlerFunc(getOnly(pprof.Index))
}
