package authn_test

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/specd-io/specd/server/authn"
	jose "gopkg.in/go-jose/go-jose.v2"
	"gopkg.in/go-jose/go-jose.v2/jwt"
)

// issuer is an OpenID provider on loopback: a discovery document and the
// key set its id tokens are signed with.
type issuer struct {
	url    string
	caFile string
	key    *rsa.PrivateKey
}

func newIssuer(t testing.TB) *issuer {
	t.Helper()
	iss := &issuer{key: newRSAKey(t)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{
			"issuer": iss.url, "jwks_uri": iss.url + "/keys",
			"authorization_endpoint": iss.url + "/auth", "token_endpoint": iss.url + "/token",
			"response_types_supported": []string{"id_token"}, "subject_types_supported": []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256"},
		})
	})
	mux.HandleFunc("GET /keys", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{
			Key: &iss.key.PublicKey, KeyID: "k1", Algorithm: string(jose.RS256), Use: "sig",
		}}})
	})
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	iss.url = srv.URL
	iss.caFile = writeFile(t, "oidc-ca.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})))
	return iss
}

func newRSAKey(t testing.TB) *rsa.PrivateKey {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// claims are those of a valid id token for client "specd", alice in
// group dev; a test changes what it needs.
func (iss *issuer) claims() map[string]any {
	now := time.Now()
	return map[string]any{
		"iss": iss.url, "aud": "specd", "sub": "alice", "email": "alice@example.com", "email_verified": true,
		"groups": []string{"dev"}, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	}
}

// signJWT makes a compact JWS of claims with key, under the issuer's key id.
func signJWT(t testing.TB, key *rsa.PrivateKey, claims map[string]any) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: "k1"}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := jwt.Signed(signer).Claims(claims).CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func (iss *issuer) oidc() authn.OIDC {
	return authn.OIDC{IssuerURL: iss.url, ClientID: "specd", UsernameClaim: "sub", GroupsClaim: "groups", CAFile: iss.caFile}
}

// ready waits until a has fetched the issuer's discovery document, which
// the library does in the background; the bound only stops a broken run.
func ready(t testing.TB, a *authn.Authenticator) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for a.HealthCheck() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("OIDC authenticator not ready: %v", a.HealthCheck())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
