package testpki

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"sync"
	"time"
)

// grant is what an authorization code stands for until it is redeemed.
type grant struct {
	clientID, redirectURI, challenge, nonce, user string
	groups                                        []string
}

// codeFlow is the Issuer's authorization code flow with PKCE (RFC 7636,
// S256 only), for public clients: a login form that asks for a user
// name, and a token endpoint that redeems each code once, for the client
// and redirect URI it was issued to, with the verifier of its challenge.
type codeFlow struct {
	iss   *Issuer
	mu    sync.Mutex
	codes map[string]grant
}

var loginForm = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test issuer: log in</title></head>
<body><h1>Log in to the test issuer</h1>
<form method="post" action="/auth">
{{range $k, $v := .}}<input type="hidden" name="{{$k}}" value="{{$v}}">
{{end}}<label for="username">User name</label> <input id="username" name="username" required>
<label for="groups">Groups (comma-separated)</label> <input id="groups" name="groups">
<button id="issuer-login" type="submit">Log in</button>
</form></body></html>`))

func (f *codeFlow) register(mux *http.ServeMux) {
	mux.HandleFunc("GET /auth", f.authorize)
	mux.HandleFunc("POST /auth", f.login)
	mux.HandleFunc("POST /token", f.token)
}

// authorize checks the request and shows the login form, which carries
// the request's parameters on to login.
func (f *codeFlow) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if err := checkAuthorize(q.Get); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	keep := map[string]string{}
	for _, k := range []string{"client_id", "redirect_uri", "state", "nonce", "code_challenge"} {
		keep[k] = q.Get(k)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = loginForm.Execute(w, keep)
}

func checkAuthorize(get func(string) string) error {
	switch {
	case get("response_type") != "code":
		return fmt.Errorf("response_type %q: only code is supported", get("response_type"))
	case get("code_challenge_method") != "S256" || get("code_challenge") == "":
		return fmt.Errorf("PKCE with code_challenge_method S256 is required")
	case get("client_id") == "" || get("redirect_uri") == "":
		return fmt.Errorf("client_id and redirect_uri are required")
	}
	return nil
}

// login issues a code for the user and sends the browser back to the
// client's redirect URI with it.
func (f *codeFlow) login(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.PostForm.Get("username") == "" {
		http.Error(w, "a user name is required", http.StatusBadRequest)
		return
	}
	p := r.PostForm
	code := rand.Text()
	f.mu.Lock()
	f.codes[code] = grant{clientID: p.Get("client_id"), redirectURI: p.Get("redirect_uri"), challenge: p.Get("code_challenge"),
		nonce: p.Get("nonce"), user: p.Get("username"), groups: splitGroups(p.Get("groups"))}
	f.mu.Unlock()
	back := p.Get("redirect_uri") + "?code=" + code + "&state=" + template.URLQueryEscaper(p.Get("state"))
	http.Redirect(w, r, back, http.StatusFound)
}

// token redeems a code for an id token. A browser calls it from the
// client's origin, so the answer allows any origin (CORS).
func (f *codeFlow) token(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	if err := r.ParseForm(); err != nil {
		tokenError(w, "invalid_request", err.Error())
		return
	}
	p := r.PostForm
	if p.Get("grant_type") != "authorization_code" {
		tokenError(w, "unsupported_grant_type", p.Get("grant_type"))
		return
	}
	f.mu.Lock()
	g, ok := f.codes[p.Get("code")]
	delete(f.codes, p.Get("code")) // a code is redeemed once, right or wrong
	f.mu.Unlock()
	sum := sha256.Sum256([]byte(p.Get("code_verifier")))
	switch {
	case !ok:
		tokenError(w, "invalid_grant", "unknown or used code")
	case g.clientID != p.Get("client_id") || g.redirectURI != p.Get("redirect_uri"):
		tokenError(w, "invalid_grant", "the code was issued to another client or redirect URI")
	case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
		tokenError(w, "invalid_grant", "code_verifier does not match code_challenge")
	default:
		writeJSON(w, map[string]any{"token_type": "Bearer", "expires_in": 3600,
			"access_token": rand.Text(), "id_token": f.idToken(g)})
	}
}

func (f *codeFlow) idToken(g grant) string {
	now := time.Now()
	claims := map[string]any{"iss": f.iss.URL, "aud": g.clientID, "sub": g.user, "email": g.user + "@example.com",
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	if g.nonce != "" {
		claims["nonce"] = g.nonce
	}
	if g.groups != nil {
		claims["groups"] = g.groups
	}
	return signJWT(f.iss.Key, claims)
}

func tokenError(w http.ResponseWriter, code, desc string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	writeJSON(w, map[string]string{"error": code, "error_description": desc})
}

func splitGroups(s string) []string {
	var groups []string
	for _, g := range strings.Split(s, ",") {
		if g = strings.TrimSpace(g); g != "" {
			groups = append(groups, g)
		}
	}
	return groups
}
