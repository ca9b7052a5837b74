package server

import (
	"encoding/json"
	"net/http"
	"runtime"
	"strconv"

	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/version"
)

// healthz answers /healthz and /livez: the process serves HTTP.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeText(w, http.StatusOK, "ok")
}

// readyz answers 503 until Ready reports true.
func (s *Server) readyz(w http.ResponseWriter, _ *http.Request) {
	if !s.cfg.Ready() {
		writeText(w, http.StatusServiceUnavailable, "not ready")
		return
	}
	writeText(w, http.StatusOK, "ok")
}

func writeText(w http.ResponseWriter, code int, text string) {
	writeBody(w, code, "text/plain; charset=utf-8", []byte(text))
}

func (s *Server) serveVersion(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.version)
}

// versionDocument fills what info leaves empty and encodes it.
func versionDocument(info version.Info) []byte {
	if info.GitVersion == "" {
		info.GitVersion = "v0.0.0-dev"
	}
	if v, err := utilversion.ParseSemantic(info.GitVersion); err == nil {
		if info.Major == "" {
			info.Major = strconv.FormatUint(uint64(v.Major()), 10)
		}
		if info.Minor == "" {
			info.Minor = strconv.FormatUint(uint64(v.Minor()), 10)
		}
	}
	if info.GitTreeState == "" {
		info.GitTreeState = "clean"
	}
	if info.GoVersion == "" {
		info.GoVersion = runtime.Version()
	}
	if info.Compiler == "" {
		info.Compiler = runtime.Compiler
	}
	if info.Platform == "" {
		info.Platform = runtime.GOOS + "/" + runtime.GOARCH
	}
	b, _ := json.Marshal(info) // strings only: cannot fail
	return b
}
