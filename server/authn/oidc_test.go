package authn_test

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/internal/testpki"
	"github.com/specd-io/specd/server/authn"
)

func TestOIDCUsers(t *testing.T) {
	iss := newIssuer(t)
	token := testpki.SignJWT(t, iss.Key, iss.claims())
	tests := map[string]struct {
		claim, prefix, groupsPrefix string
		user                        string
		groups                      []string
	}{
		"sub, issuer prefix": {claim: "sub", user: iss.URL + "#alice", groups: []string{"dev"}},
		"sub, own prefix":    {claim: "sub", prefix: "oidc:", user: "oidc:alice"},
		"sub, no prefix":     {claim: "sub", prefix: "-", user: "alice"},
		"email":              {claim: "email", user: "alice@example.com"},
		"email, own prefix":  {claim: "email", prefix: "oidc:", user: "oidc:alice@example.com"},
		"groups prefix":      {claim: "sub", prefix: "-", groupsPrefix: "oidc:", user: "alice", groups: []string{"oidc:dev"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			o := iss.oidc()
			o.UsernameClaim, o.UsernamePrefix, o.GroupsPrefix = tc.claim, tc.prefix, tc.groupsPrefix
			a := newAuthenticator(t, authn.Config{OIDC: o})
			ready(t, a)
			groups := tc.groups
			if groups == nil {
				groups = []string{"dev"}
			}
			resp, ok, err := a.AuthenticateRequest(bearer(token))
			wantUser(t, resp, ok, err, tc.user, append(groups, "system:authenticated"))
		})
	}
}

func TestOIDCRejects(t *testing.T) {
	iss := newIssuer(t)
	a := newAuthenticator(t, authn.Config{OIDC: iss.oidc()})
	ready(t, a)
	with := func(k string, v any) string {
		c := iss.claims()
		c[k] = v
		if v == nil {
			delete(c, k)
		}
		return testpki.SignJWT(t, iss.Key, c)
	}
	tests := map[string]string{
		"wrong audience": with("aud", "another-client"),
		"expired":        with("exp", time.Now().Add(-time.Hour).Unix()),
		"other issuer":   with("iss", "https://127.0.0.1:1"),
		"no user claim":  with("sub", nil),
		"groups a map":   with("groups", map[string]string{"a": "b"}),
		"wrong signer":   testpki.SignJWT(t, testpki.NewRSAKey(t), iss.claims()),
		"unsigned":       unsigned(t, testpki.SignJWT(t, iss.Key, iss.claims())),
		"truncated":      testpki.SignJWT(t, iss.Key, iss.claims())[:100],
	}
	for name, token := range tests {
		t.Run(name, func(t *testing.T) {
			resp, ok, err := a.AuthenticateRequest(bearer(token))
			if ok || err == nil {
				t.Fatalf("accepted: ok=%v err=%v resp=%+v", ok, err, resp)
			}
		})
	}
}

// unsigned replaces the header of token by one of algorithm "none" and
// drops the signature.
func unsigned(t *testing.T, token string) string {
	t.Helper()
	var payload string
	for i, c := range token {
		if c == '.' {
			payload = token[i+1:]
			break
		}
	}
	for i := len(payload) - 1; i >= 0; i-- {
		if payload[i] == '.' {
			payload = payload[:i]
			break
		}
	}
	header := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
	return header + "." + payload + "."
}

func TestOIDCEmailNotVerified(t *testing.T) {
	iss := newIssuer(t)
	o := iss.oidc()
	o.UsernameClaim = "email"
	a := newAuthenticator(t, authn.Config{OIDC: o})
	ready(t, a)
	c := iss.claims()
	c["email_verified"] = false
	if resp, ok, err := a.AuthenticateRequest(bearer(testpki.SignJWT(t, iss.Key, c))); ok || err == nil {
		t.Fatalf("accepted: ok=%v err=%v resp=%+v", ok, err, resp)
	}
}

func TestOIDCCAFile(t *testing.T) {
	iss := newIssuer(t)
	o := iss.oidc()
	o.CAFile = writeFile(t, "not-pem", "garbage")
	_, err := authn.New(t.Context(), authn.Config{OIDC: o})
	if err == nil || !strings.Contains(err.Error(), "--oidc-ca-file "+o.CAFile) {
		t.Fatalf("error %v, want one naming --oidc-ca-file %s", err, o.CAFile)
	}
}
