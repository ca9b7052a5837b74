package testpki

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// grant is what an authorization code stands for until it is redeemed.
type grant struct {
	clientID, redirectURI, challenge, nonce, user, scope string
	groups                                               []string
}

// codeFlow is the Issuer's authorization code flow with PKCE (RFC 7636,
// S256 only), for public clients: a login form that asks for a user
// name, and a token endpoint that redeems each code once, for the client
// and redirect URI it was issued to, with the verifier of its challenge.
// A login that asked for the scope offline_access gets a refresh token
// too, which the token endpoint's refresh grant trades for new tokens.
type codeFlow struct {
	iss      *Issuer
	refresh  *refreshTokens
	lifetime time.Duration // of an id token
	mu       sync.Mutex
	codes    map[string]grant
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
	for _, k := range []string{"client_id", "redirect_uri", "state", "nonce", "code_challenge", "scope"} {
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
		nonce: p.Get("nonce"), user: p.Get("username"), groups: splitGroups(p.Get("groups")), scope: p.Get("scope")}
	f.mu.Unlock()
	back := p.Get("redirect_uri") + "?code=" + code + "&state=" + template.URLQueryEscaper(p.Get("state"))
	http.Redirect(w, r, back, http.StatusFound)
}

// token redeems a code or a refresh token for an id token. A browser
// calls it from the client's origin, so the answer allows any origin
// (CORS).
func (f *codeFlow) token(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	if err := r.ParseForm(); err != nil {
		tokenError(w, "invalid_request", err.Error())
		return
	}
	p := r.PostForm
	switch p.Get("grant_type") {
	case "authorization_code":
		f.redeemCode(w, p)
	case "refresh_token":
		f.redeemRefresh(w, p)
	default:
		tokenError(w, "unsupported_grant_type", p.Get("grant_type"))
	}
}

// redeemCode answers tokens for a code, once, to the client that has
// the verifier of its challenge.
func (f *codeFlow) redeemCode(w http.ResponseWriter, p url.Values) {
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
		f.answer(w, g)
	}
}

// redeemRefresh answers new tokens for a refresh token, once.
func (f *codeFlow) redeemRefresh(w http.ResponseWriter, p url.Values) {
	g, ok := f.refresh.redeem(p.Get("refresh_token"), p.Get("client_id"))
	if !ok {
		tokenError(w, "invalid_grant", "unknown, used or revoked refresh token")
		return
	}
	g.nonce = "" // a refreshed id token is no answer to a login's nonce
	f.answer(w, g)
}

// answer writes the tokens of g: an id token, and a refresh token when
// the login asked for offline_access.
func (f *codeFlow) answer(w http.ResponseWriter, g grant) {
	tokens := map[string]any{"token_type": "Bearer", "expires_in": int(f.lifetime.Seconds()),
		"access_token": rand.Text(), "id_token": f.idToken(g)}
	if slices.Contains(strings.Fields(g.scope), "offline_access") {
		tokens["refresh_token"] = f.refresh.issue(g)
	}
	writeJSON(w, tokens)
}

func (f *codeFlow) idToken(g grant) string {
	now := time.Now()
	claims := map[string]any{"iss": f.iss.URL, "aud": g.clientID, "sub": g.user, "email": g.user + "@example.com",
		"iat": now.Unix(), "exp": now.Add(f.lifetime).Unix()}
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
