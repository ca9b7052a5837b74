package console

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/specd-io/specd/internal/testpki"
)

// oidcClientID is the client the console logs in as: a public client
// of the test's issuer, whose id tokens specd accepts.
const oidcClientID = "specd-console"

// oidcArgs starts an OpenID provider for the test (the one specd's
// authentication tests use, with its login form) and answers its URL
// and the flags that make specd trust it, users prefixed "oidc:".
func oidcArgs(t testing.TB) (string, []string) {
	t.Helper()
	iss := testpki.NewIssuer(t)
	ca := filepath.Join(t.TempDir(), "oidc-ca.pem")
	if err := os.WriteFile(ca, iss.CAPEM(), 0o644); err != nil {
		t.Fatal(err)
	}
	return iss.URL, []string{"--oidc-issuer-url", iss.URL, "--oidc-client-id", oidcClientID, "--oidc-ca-file", ca,
		"--oidc-username-prefix", "oidc:", "--oidc-groups-claim", "groups", "--oidc-groups-prefix", "oidc:"}
}
