package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"

	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/version"
)

// healthz answers /healthz and /livez: the process serves HTTP.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeText(w, http.StatusOK, "ok")
}

// Check is one named check of /readyz. A failing check makes specd
// unready, unless it is Informational: then /readyz?verbose shows what is
// wrong and readiness holds (plugin health: kube-apiserver stays ready
// while an admission webhook is down).
type Check struct {
	Name          string
	Check         func() error
	Informational bool
}

// readyz answers 503 until Ready reports true and every check that is not
// informational passes; ?verbose lists each check, as kube-apiserver does.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ready := s.cfg.Ready()
	_, verbose := r.URL.Query()["verbose"]
	checks := s.cfg.Checks
	if s.cfg.PluginChecks != nil {
		for _, c := range s.cfg.PluginChecks() {
			checks = append(slices.Clip(checks), Check{Name: c.Name, Check: c.Check, Informational: true})
		}
	}
	if len(checks) == 0 && !verbose {
		if !ready {
			writeText(w, http.StatusServiceUnavailable, "not ready")
			return
		}
		writeText(w, http.StatusOK, "ok")
		return
	}
	var b strings.Builder
	b.WriteString("[+]ping ok\n")
	if ready {
		b.WriteString("[+]ready ok\n")
	} else {
		b.WriteString("[-]ready failed: not ready\n")
	}
	for _, c := range checks {
		switch err := c.Check(); {
		case err == nil:
			fmt.Fprintf(&b, "[+]%s ok\n", c.Name)
		case c.Informational:
			fmt.Fprintf(&b, "[!]%s: %v (informational: readiness holds)\n", c.Name, err)
		default:
			ready = false
			fmt.Fprintf(&b, "[-]%s failed: %v\n", c.Name, err)
		}
	}
	code, verdict := http.StatusOK, "readyz check passed"
	if !ready {
		code, verdict = http.StatusServiceUnavailable, "readyz check failed"
	}
	if !verbose {
		if ready {
			writeText(w, code, "ok")
			return
		}
		writeText(w, code, "not ready")
		return
	}
	writeText(w, code, b.String()+verdict)
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
