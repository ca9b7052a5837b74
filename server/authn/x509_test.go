package authn_test

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/authentication/authenticator"

	"github.com/specd-io/specd/internal/testhttp"
	"github.com/specd-io/specd/server/authn"
)

func TestClientCertificates(t *testing.T) {
	ca, other := newCA(t, "client-ca"), newCA(t, "other-ca")
	a := newAuthenticator(t, authn.Config{ClientCA: ca.provider(t)})
	expired, _ := ca.client(t, "alice", nil, time.Now().Add(-2*time.Hour), time.Now().Add(-time.Hour))
	notYet, _ := ca.client(t, "alice", nil, time.Now().Add(time.Hour), time.Now().Add(2*time.Hour))
	tests := map[string]struct {
		cert   *x509.Certificate
		user   string
		groups []string
	}{
		"right CA":      {cert: ca.valid(t, "alice", "dev", "ops"), user: "alice", groups: []string{"dev", "ops", "system:authenticated"}},
		"no groups":     {cert: ca.valid(t, "bob"), user: "bob", groups: []string{"system:authenticated"}},
		"another CA":    {cert: other.valid(t, "alice", "system:masters")},
		"expired":       {cert: expired},
		"not yet valid": {cert: notYet},
		"bad signature": {cert: badSignature(t, ca.valid(t, "alice", "system:masters"))},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			resp, ok, err := a.AuthenticateRequest(certRequest(tc.cert))
			if tc.user == "" {
				if ok || err == nil {
					t.Fatalf("accepted: ok=%v err=%v resp=%+v", ok, err, resp)
				}
				return
			}
			wantUser(t, resp, ok, err, tc.user, tc.groups)
		})
	}
}

func TestClientCertificateOverTLS(t *testing.T) {
	ca := newCA(t, "client-ca")
	a := newAuthenticator(t, authn.Config{ClientCA: ca.provider(t)})
	srv := whoamiServer(t, a)
	cert, key := ca.client(t, "alice", []string{"devs"}, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	tr := srv.Client().Transport.(*http.Transport).Clone()
	tr.TLSClientConfig.Certificates = []tls.Certificate{{Certificate: [][]byte{cert.Raw}, PrivateKey: key, Leaf: cert}}
	client := &http.Client{Transport: tr}
	if got := testhttp.Do(t, client, testhttp.Request{URL: srv.URL}).Body; got != "alice devs,system:authenticated" {
		t.Fatalf("got %q", got)
	}
	if got := testhttp.Do(t, srv.Client(), testhttp.Request{URL: srv.URL}).Body; got != "401" {
		t.Fatalf("without a certificate: got %q", got)
	}
}

// whoamiServer answers "user groups" for an authenticated request, and 401.
func whoamiServer(t *testing.T, a authenticator.Request) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, ok, _ := a.AuthenticateRequest(r)
		if !ok {
			_, _ = io.WriteString(w, "401")
			return
		}
		_, _ = io.WriteString(w, resp.User.GetName()+" "+join(resp.User.GetGroups()))
	}))
	srv.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func join(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += ","
		}
		out += v
	}
	return out
}

func newAuthenticator(t testing.TB, cfg authn.Config) *authn.Authenticator {
	t.Helper()
	a, err := authn.New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func wantUser(t *testing.T, resp *authenticator.Response, ok bool, err error, user string, groups []string) {
	t.Helper()
	if !ok || err != nil {
		t.Fatalf("not authenticated: ok=%v err=%v", ok, err)
	}
	if got := resp.User.GetName(); got != user {
		t.Errorf("user %q, want %q", got, user)
	}
	if got := resp.User.GetGroups(); !slices.Equal(got, groups) {
		t.Errorf("groups %q, want %q", got, groups)
	}
}
