package authn_test

import (
	"crypto/x509"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/internal/testpki"
	"github.com/specd-io/specd/server/authn"
)

// FuzzAuthorizationHeader sends any Authorization header through the
// token file and OIDC authenticators: nothing may panic, and only a
// header carrying a valid token may name a user — that token's user.
func FuzzAuthorizationHeader(f *testing.F) {
	iss := newIssuer(f)
	o := iss.oidc()
	o.UsernamePrefix = "-"
	a := newAuthenticator(f, authn.Config{TokenAuthFile: writeFile(f, "tokens.csv", tokens), OIDC: o})
	ready(f, a)
	jwt := testpki.SignJWT(f, iss.Key, iss.claims())
	valid := map[string]string{"token-alice": "alice", "token-bob": "bob"}
	for _, seed := range []string{
		"Bearer token-alice", "bearer token-bob", "BEARER token-bob trailing", "Bearer  token-bob", " Bearer token-bob ",
		"Bearer token-", "Bearer token-bobb", "Bearer alice", "Basic dG9rZW4tYm9iOg==", "Bearer", "Bearer ", "",
		"Bearer token-bob\x00", "Bearer\ttoken-bob", "Bearer " + jwt, "Bearer " + jwt[:len(jwt)-2],
		"Bearer " + expireJWT(jwt), "Bearer a.b.c", "Bearer e30.e30.", "Bearer ..",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, header string) {
		req := httptest.NewRequest(http.MethodGet, "/api", nil)
		req.Header["Authorization"] = []string{header}
		resp, ok, _ := a.AuthenticateRequest(req)
		if !ok {
			return
		}
		want, found := "", false
		if token, isBearer := bearerToken(header); isBearer {
			want, found = valid[token]
			if sameJWT(token, jwt) {
				want, found = "alice", true
			}
		}
		if !found || resp.User.GetName() != want {
			t.Fatalf("header %q authenticated as %q (valid token: %v, for %q)", header, resp.User.GetName(), found, want)
		}
	})
}

// bearerToken reads the header as RFC 6750 does, more leniently than the
// library: a token the library takes is always found here.
func bearerToken(header string) (string, bool) {
	fields := strings.Fields(header)
	if len(fields) < 2 || !strings.EqualFold(fields[0], "bearer") {
		return "", false
	}
	return fields[1], true
}

// sameJWT says whether two compact JWS carry the same bytes: base64url
// ignores trailing bits, so one signed token has several spellings.
func sameJWT(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	if len(pa) != 3 || len(pb) != 3 {
		return false
	}
	for i := range pa {
		da, errA := base64.RawURLEncoding.DecodeString(strings.TrimRight(pa[i], "="))
		db, errB := base64.RawURLEncoding.DecodeString(pb[i])
		if errA != nil || errB != nil || string(da) != string(db) {
			return false
		}
	}
	return true
}

// expireJWT keeps the signature and changes the payload.
func expireJWT(jwt string) string {
	p := strings.Split(jwt, ".")
	p[1] = base64.RawURLEncoding.EncodeToString([]byte(`{"exp":1}`))
	return strings.Join(p, ".")
}

// FuzzClientCertificate presents any DER certificate as the client's: only
// one the client CA signed, valid now and for client auth, may name a
// user — its CN.
func FuzzClientCertificate(f *testing.F) {
	ca, other := newCA(f, "client-ca"), newCA(f, "other-ca")
	a := newAuthenticator(f, authn.Config{ClientCA: ca.provider(f)})
	good := ca.valid(f, "alice", "dev")
	expired, _ := ca.client(f, "alice", nil, time.Now().Add(-2*time.Hour), time.Now().Add(-time.Hour))
	for _, seed := range [][]byte{
		good.Raw, other.valid(f, "alice").Raw, expired.Raw, badSignature(f, good).Raw,
		good.Raw[:len(good.Raw)/2], []byte("not a certificate"), nil,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, der []byte) {
		cert, err := x509.ParseCertificate(der)
		if err != nil {
			return // the TLS handshake refuses it before any authenticator runs
		}
		resp, ok, _ := a.AuthenticateRequest(certRequest(cert))
		if !ok {
			return
		}
		if why := unacceptable(cert, ca.Cert); why != "" {
			t.Fatalf("certificate %q accepted as %q though %s", cert.Subject, resp.User.GetName(), why)
		}
		if resp.User.GetName() != cert.Subject.CommonName {
			t.Fatalf("certificate of CN %q accepted as %q", cert.Subject.CommonName, resp.User.GetName())
		}
	})
}

// unacceptable says why cert must not authenticate against ca, checked
// without the x509 verifier the authenticator uses.
func unacceptable(cert, ca *x509.Certificate) string {
	now := time.Now()
	switch {
	case cert.CheckSignatureFrom(ca) != nil:
		return "the CA did not sign it"
	case now.Before(cert.NotBefore) || now.After(cert.NotAfter):
		return "it is not valid now"
	case len(cert.ExtKeyUsage) > 0 && !slices.Contains(cert.ExtKeyUsage, x509.ExtKeyUsageClientAuth) &&
		!slices.Contains(cert.ExtKeyUsage, x509.ExtKeyUsageAny):
		return "it is not for client auth"
	case cert.Subject.CommonName == "":
		return "it names no one"
	}
	return ""
}
