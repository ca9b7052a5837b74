package console

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed static
var files embed.FS

// Prefix is where Handler serves: /console/ and the files under it.
const Prefix = "/console/"

// contentSecurityPolicy lets the page load its own scripts, styles and
// images only, and connect to its own origin only (specd's API): no
// inline script, no frame, no form posted elsewhere.
const contentSecurityPolicy = "default-src 'self'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'; object-src 'none'"

// Handler serves the console's files under Prefix, for GET and HEAD.
func Handler() http.Handler {
	static, err := fs.Sub(files, "static")
	if err != nil {
		panic("console: the embedded files have no static/: " + err.Error())
	}
	fileServer := http.StripPrefix(Prefix, http.FileServerFS(static))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if !strings.HasPrefix(r.URL.Path, Prefix) {
			http.NotFound(w, r)
			return
		}
		setHeaders(w.Header())
		fileServer.ServeHTTP(w, r)
	})
}

// setHeaders are the headers of every file: the policy, no sniffing, no
// referrer (a URL may name an object), and revalidation, so that a new
// binary's files are used at once.
func setHeaders(h http.Header) {
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
}
