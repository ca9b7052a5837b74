package authn_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/specd-io/specd/internal/testpki"
	"github.com/specd-io/specd/server/authn"
)

func TestUnionOrder(t *testing.T) {
	ca, other := newCA(t, "client-ca"), newCA(t, "other-ca")
	iss := newIssuer(t)
	cfg := authn.Config{ClientCA: ca.provider(t), TokenAuthFile: writeFile(t, "tokens.csv", tokens), OIDC: iss.oidc()}
	cfg.OIDC.UsernamePrefix = "oidc:"
	a := newAuthenticator(t, cfg)
	ready(t, a)
	jwt := testpki.SignJWT(t, iss.Key, iss.claims())
	tests := map[string]struct {
		req  *http.Request
		user string
	}{
		"certificate before token":    {req: withToken(certRequest(ca.valid(t, "carol")), "token-bob"), user: "carol"},
		"bad certificate, good token": {req: withToken(certRequest(other.valid(t, "carol")), "token-bob"), user: "bob"},
		"token file":                  {req: bearer("token-bob"), user: "bob"},
		"OIDC":                        {req: bearer(jwt), user: "oidc:alice"},
		"bad certificate, bad token":  {req: withToken(certRequest(other.valid(t, "carol")), "nope")},
		"nothing":                     {req: httptest.NewRequest(http.MethodGet, "/api", nil)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			resp, ok, err := a.AuthenticateRequest(tc.req)
			if tc.user == "" {
				if ok {
					t.Fatalf("accepted %q", resp.User.GetName())
				}
				return
			}
			if !ok || err != nil || resp.User.GetName() != tc.user {
				t.Fatalf("ok=%v err=%v resp=%+v, want user %q", ok, err, resp, tc.user)
			}
		})
	}
}

func withToken(req *http.Request, token string) *http.Request {
	req.Header.Set("Authorization", "Bearer "+token)
	return req
}

func TestAnonymous(t *testing.T) {
	path := writeFile(t, "tokens.csv", tokens)
	on := newAuthenticator(t, authn.Config{TokenAuthFile: path, Anonymous: true})
	off := newAuthenticator(t, authn.Config{TokenAuthFile: path})
	noCreds := func() *http.Request { return httptest.NewRequest(http.MethodGet, "/api", nil) }

	resp, ok, err := on.AuthenticateRequest(noCreds())
	wantUser(t, resp, ok, err, "system:anonymous", []string{"system:unauthenticated"})
	resp, ok, err = on.AuthenticateRequest(bearer("token-bob"))
	wantUser(t, resp, ok, err, "bob", []string{"system:authenticated"})
	if resp, ok, err := on.AuthenticateRequest(bearer("wrong")); ok || err == nil {
		t.Errorf("a wrong token was taken for no credential: ok=%v err=%v resp=%+v", ok, err, resp)
	}
	if resp, ok, err := off.AuthenticateRequest(noCreds()); ok || err != nil {
		t.Errorf("anonymous off: ok=%v err=%v resp=%+v, want no opinion", ok, err, resp)
	}
}

func TestNothingConfigured(t *testing.T) {
	a := newAuthenticator(t, authn.Config{})
	if resp, ok, _ := a.AuthenticateRequest(certRequest(newCA(t, "ca").Cert)); ok {
		t.Fatalf("accepted %+v with no authenticator", resp)
	}
}
