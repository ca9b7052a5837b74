package testpki

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	jose "gopkg.in/go-jose/go-jose.v2"
	"gopkg.in/go-jose/go-jose.v2/jwt"
)

// KeyID is the key id of an Issuer's signing key in its key set.
const KeyID = "k1"

// Issuer is an OpenID provider on loopback, over TLS: a discovery
// document, the key set its id tokens are signed with (RS256), and the
// authorization code flow with PKCE for public clients (a login form that
// asks for a user name and groups, and a token endpoint).
type Issuer struct {
	URL    string
	Key    *rsa.PrivateKey
	Server *httptest.Server
	// refresh holds the refresh tokens the code flow issued.
	refresh *refreshTokens
}

// IssuerOption changes how an Issuer issues tokens.
type IssuerOption func(*issuerOptions)

type issuerOptions struct {
	tokenLifetime time.Duration
}

// WithTokenLifetime makes the id tokens of the code flow (and of its
// refresh grant) expire d after they are issued, not an hour.
func WithTokenLifetime(d time.Duration) IssuerOption {
	return func(o *issuerOptions) { o.tokenLifetime = d }
}

// NewIssuer starts an Issuer until the test ends.
func NewIssuer(t testing.TB, opts ...IssuerOption) *Issuer {
	t.Helper()
	o := issuerOptions{tokenLifetime: time.Hour}
	for _, opt := range opts {
		opt(&o)
	}
	iss := &Issuer{Key: NewRSAKey(t), refresh: &refreshTokens{byToken: map[string]grant{}}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		// A browser client reads it from its own origin.
		w.Header().Set("Access-Control-Allow-Origin", "*")
		writeJSON(w, map[string]any{
			"issuer": iss.URL, "jwks_uri": iss.URL + "/keys",
			"authorization_endpoint": iss.URL + "/auth", "token_endpoint": iss.URL + "/token",
			"response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256"}, "code_challenge_methods_supported": []string{"S256"},
			"grant_types_supported": []string{"authorization_code", "refresh_token"}, "token_endpoint_auth_methods_supported": []string{"none"},
			"scopes_supported": []string{"openid", "email", "profile", "offline_access"},
		})
	})
	(&codeFlow{iss: iss, codes: map[string]grant{}, refresh: iss.refresh, lifetime: o.tokenLifetime}).register(mux)
	mux.HandleFunc("GET /keys", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{
			Key: &iss.Key.PublicKey, KeyID: KeyID, Algorithm: string(jose.RS256), Use: "sig",
		}}})
	})
	iss.Server = httptest.NewTLSServer(mux)
	t.Cleanup(iss.Server.Close)
	iss.URL = iss.Server.URL
	return iss
}

// Refreshes is how many refresh grants the Issuer has answered with new
// tokens.
func (iss *Issuer) Refreshes() int { return iss.refresh.count() }

// RevokeRefreshTokens makes the Issuer refuse every refresh token it has
// issued so far (invalid_grant), as an issuer does when a session ends.
func (iss *Issuer) RevokeRefreshTokens() { iss.refresh.revokeAll() }

// CAPEM is the CA of the Issuer's serving certificate, for --oidc-ca-file.
func (iss *Issuer) CAPEM() []byte { return CertPEM(iss.Server.Certificate()) }

// NewRSAKey makes a 2048-bit RSA key.
func NewRSAKey(t testing.TB) *rsa.PrivateKey {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// SignJWT makes a compact JWS of claims with key, under KeyID.
func SignJWT(t testing.TB, key *rsa.PrivateKey, claims map[string]any) string {
	t.Helper()
	raw, err := signJWTErr(key, claims)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// signJWT is SignJWT for the issuer's own handlers, which have no test
// to fail: signing with a valid RSA key does not fail.
func signJWT(key *rsa.PrivateKey, claims map[string]any) string {
	raw, err := signJWTErr(key, claims)
	if err != nil {
		panic("testpki: sign an id token: " + err.Error())
	}
	return raw
}

func signJWTErr(key *rsa.PrivateKey, claims map[string]any) (string, error) {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: KeyID}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", err
	}
	return jwt.Signed(signer).Claims(claims).CompactSerialize()
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
