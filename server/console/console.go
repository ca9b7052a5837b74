package console

import (
	"embed"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"time"
)

//go:embed static
var files embed.FS

// Prefix is where Handler serves: /console/ and the files under it.
const Prefix = "/console/"

// Config is what the page needs to know of the server and may be told
// without a login: nothing secret.
type Config struct {
	// OIDC is the issuer the page logs in with, as a public client
	// (authorization code with PKCE); no IssuerURL means none.
	OIDC OIDC `json:"oidc"`
	// Login redeems the login link's code (POST Prefix+"login"); nil
	// means the page has no link to redeem.
	Login Login `json:"-"`
}

// Login redeems a login link's code, once, for a bearer token and its
// expiry (server/authn.LoginLink).
type Login interface {
	Redeem(code string) (string, time.Time, error)
}

// OIDC is the issuer of --oidc-issuer-url and the client of
// --oidc-client-id: the page asks the issuer for an id token for that
// client, which the API then accepts.
type OIDC struct {
	IssuerURL string `json:"issuerURL,omitempty"`
	ClientID  string `json:"clientID,omitempty"`
}

// policy is the page's Content-Security-Policy: it may load its own
// scripts, styles and images only, and connect to its own origin
// (specd's API) and to the OIDC issuer's (its discovery document and
// token endpoint): no inline script, no frame, no form posted elsewhere.
// The issuer's URL was checked by the --oidc-* flags' check: one that
// is not an https URL adds no origin.
func (c Config) policy() string {
	connect := "'self'"
	if u, err := url.Parse(c.OIDC.IssuerURL); err == nil && u.Scheme == "https" && u.Host != "" {
		connect += " https://" + u.Host
	}
	return "default-src 'self'; connect-src " + connect + "; base-uri 'none'; frame-ancestors 'none'; form-action 'none'; object-src 'none'"
}

// Handler serves the console's files under Prefix, for GET and HEAD, and
// cfg as Prefix+"config.json".
func Handler(cfg Config) http.Handler {
	static, err := fs.Sub(files, "static")
	if err != nil {
		panic("console: the embedded files have no static/: " + err.Error())
	}
	csp := cfg.policy()
	config, err := json.Marshal(cfg)
	if err != nil {
		panic("console: marshal the config: " + err.Error()) // strings only
	}
	fileServer := http.StripPrefix(Prefix, http.FileServerFS(static))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == Prefix+"login" && r.Method == http.MethodPost && cfg.Login != nil {
			setHeaders(w.Header(), csp)
			redeem(w, r, cfg.Login)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if !strings.HasPrefix(r.URL.Path, Prefix) {
			http.NotFound(w, r)
			return
		}
		setHeaders(w.Header(), csp)
		keepConnection(w.Header())
		if r.URL.Path == Prefix+"config.json" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(config)
			return
		}
		fileServer.ServeHTTP(w, r)
	})
}

// keepConnection lets the browser keep the HTTP/2 connection that loaded
// a file. The authentication filter asks for the connection to close
// after any anonymous HTTP/2 request (k8s.io/apiserver's
// UnauthenticatedHTTP2DOSMitigation: "Connection: close", which Go's
// HTTP/2 server turns into a GOAWAY), and the page's files are always
// fetched anonymously, a dozen modules at once. Every one of them would
// cost a new connection, and a module requested on a connection the
// server is closing fails in Chromium as net::ERR_CONNECTION_CLOSED,
// which leaves the page blank. The files and config.json carry nothing
// secret and cost the server no more than a 401 does; API requests keep
// the mitigation.
func keepConnection(h http.Header) { h.Del("Connection") }

// setHeaders are the headers of every file: the policy, no sniffing, no
// referrer (a URL may name an object, or carry an OIDC code), and
// revalidation, so that a new binary's files are used at once.
func setHeaders(h http.Header, csp string) {
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
}
