package console_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/server/console"
)

// TestHandler: the files are served with the policy and without cookies
// or CORS headers; only GET and HEAD are.
func TestHandler(t *testing.T) {
	h := console.Handler(console.Config{})
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
	console.Handler(console.Config{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/console/", nil))
	page := rec.Body.String()
	if strings.Contains(page, "<script>") || strings.Contains(page, "<style") || strings.Contains(page, " style=") || strings.Contains(page, " onclick=") {
		t.Errorf("the page has inline script or style:\n%s", page)
	}
	if !strings.Contains(page, `<script type="module" src="app.js"></script>`) {
		t.Errorf("the page does not load app.js as a module:\n%s", page)
	}
}

// TestConfig: config.json tells the page the OIDC issuer and client, and
// the policy lets the page connect to the issuer's origin and no other.
func TestConfig(t *testing.T) {
	tests := map[string]struct {
		cfg           console.Config
		body, connect string
	}{
		"no OIDC": {console.Config{}, `{"oidc":{}}`, "connect-src 'self';"},
		"OIDC": {console.Config{OIDC: console.OIDC{IssuerURL: "https://issuer.example:8443/realms/x", ClientID: "specd"}},
			`{"oidc":{"issuerURL":"https://issuer.example:8443/realms/x","clientID":"specd"}}`,
			"connect-src 'self' https://issuer.example:8443;"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			console.Handler(tc.cfg).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/console/config.json", nil))
			if rec.Code != http.StatusOK || rec.Body.String() != tc.body {
				t.Errorf("config.json: %d %s, want %s", rec.Code, rec.Body, tc.body)
			}
			if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, tc.connect) {
				t.Errorf("Content-Security-Policy %q, want %q in it", csp, tc.connect)
			}
		})
	}
}

// oneCode is a Login that redeems "good" once.
type oneCode struct{ used bool }

func (o *oneCode) Redeem(code string) (string, time.Time, error) {
	if code != "good" || o.used {
		return "", time.Time{}, errors.New("refused")
	}
	o.used = true
	return "a-token", time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC), nil
}

// TestLogin: POST /console/login trades the link's code for a token
// once; a refusal is a 403 Status; without a link the path is no
// endpoint.
func TestLogin(t *testing.T) {
	h := console.Handler(console.Config{Login: &oneCode{}})
	steps := []struct {
		handler    http.Handler
		code       string
		status     int
		bodyPrefix string
	}{
		{h, "good", http.StatusOK, `{"expires":"2026-11-29T20:00:00Z","token":"a-token"}`},
		{h, "good", http.StatusForbidden, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the login link is wrong, used or expired`},
		{console.Handler(console.Config{}), "good", http.StatusMethodNotAllowed, ""},
	}
	for i, s := range steps {
		rec := httptest.NewRecorder()
		s.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/console/login", strings.NewReader(s.code)))
		if rec.Code != s.status || !strings.HasPrefix(rec.Body.String(), s.bodyPrefix) {
			t.Errorf("step %d: %d %s, want %d %s", i, rec.Code, rec.Body, s.status, s.bodyPrefix)
		}
	}
}
