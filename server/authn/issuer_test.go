package authn_test

import (
	"testing"
	"time"

	"github.com/specd-io/specd/internal/testpki"
	"github.com/specd-io/specd/server/authn"
)

// issuer is the test's OpenID provider, with its CA written to a file
// for --oidc-ca-file.
type issuer struct {
	*testpki.Issuer
	caFile string
}

func newIssuer(t testing.TB) *issuer {
	t.Helper()
	iss := testpki.NewIssuer(t)
	return &issuer{Issuer: iss, caFile: writeFile(t, "oidc-ca.pem", string(iss.CAPEM()))}
}

// claims are those of a valid id token for client "specd", alice in
// group dev; a test changes what it needs.
func (iss *issuer) claims() map[string]any {
	now := time.Now()
	return map[string]any{
		"iss": iss.URL, "aud": "specd", "sub": "alice", "email": "alice@example.com", "email_verified": true,
		"groups": []string{"dev"}, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	}
}

func (iss *issuer) oidc() authn.OIDC {
	return authn.OIDC{IssuerURL: iss.URL, ClientID: "specd", UsernameClaim: "sub", GroupsClaim: "groups", CAFile: iss.caFile}
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
