package console_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/specd-io/specd/server/console"
)

// TestHandler: the files are served with the policy and without cookies
// or CORS headers; only GET and HEAD are.
func TestHandler(t *testing.T) {
	h := console.Handler()
	tests := map[string]struct {
		method, path string
		code         int
		contentType  string
	}{
		"the page":        {http.MethodGet, "/console/", http.StatusOK, "text/html; charset=utf-8"},
		"a module":        {http.MethodGet, "/console/app.js", http.StatusOK, "text/javascript; charset=utf-8"},
		"the style":       {http.MethodHead, "/console/console.css", http.StatusOK, "text/css; charset=utf-8"},
		"no such file":    {http.MethodGet, "/console/nope.js", http.StatusNotFound, ""},
		"a write refused": {http.MethodPost, "/console/", http.StatusMethodNotAllowed, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
			if rec.Code != tc.code {
				t.Fatalf("%s %s: %d, want %d", tc.method, tc.path, rec.Code, tc.code)
			}
			if tc.contentType != "" && rec.Header().Get("Content-Type") != tc.contentType {
				t.Errorf("Content-Type %q, want %q", rec.Header().Get("Content-Type"), tc.contentType)
			}
			if tc.code == http.StatusOK && !strings.HasPrefix(rec.Header().Get("Content-Security-Policy"), "default-src 'self';") {
				t.Errorf("Content-Security-Policy %q", rec.Header().Get("Content-Security-Policy"))
			}
			for name := range rec.Header() {
				if name == "Set-Cookie" || strings.HasPrefix(name, "Access-Control-") {
					t.Errorf("header %s set", name)
				}
			}
		})
	}
}

// TestNoInlineScript: the policy forbids inline scripts and styles, so
// the page must have none: every script is a module file.
func TestNoInlineScript(t *testing.T) {
	rec := httptest.NewRecorder()
	console.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/console/", nil))
	page := rec.Body.String()
	if strings.Contains(page, "<script>") || strings.Contains(page, "<style") || strings.Contains(page, " style=") || strings.Contains(page, " onclick=") {
		t.Errorf("the page has inline script or style:\n%s", page)
	}
	if !strings.Contains(page, `<script type="module" src="app.js"></script>`) {
		t.Errorf("the page does not load app.js as a module:\n%s", page)
	}
}
