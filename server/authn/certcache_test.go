package authn

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
)

// countingVerifier accepts every certificate whose CN is not "bad", as
// the user its CN names, and counts the verifications.
type countingVerifier struct{ calls int }

func (v *countingVerifier) AuthenticateRequest(req *http.Request) (*authenticator.Response, bool, error) {
	v.calls++
	cn := req.TLS.PeerCertificates[0].Subject.CommonName
	if cn == "bad" {
		return nil, false, errors.New("verifying certificate failed")
	}
	return &authenticator.Response{User: &user.DefaultInfo{Name: cn}}, true, nil
}

type fakeClock struct{ t time.Time }

func (c *fakeClock) Now() time.Time { return c.t }

func certReq(cn string, raw byte, notAfter time.Time) *http.Request {
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	cert := &x509.Certificate{Raw: []byte{raw}, NotAfter: notAfter}
	cert.Subject.CommonName = cn
	req.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert}}
	return req
}

// authenticate asks c and fails the test unless the answer is want ("" for
// a refusal).
func authenticate(t *testing.T, c *certCache, req *http.Request, want string) {
	t.Helper()
	resp, ok, err := c.AuthenticateRequest(req)
	got := ""
	if ok && err == nil {
		got = resp.User.GetName()
	}
	if got != want {
		t.Fatalf("user %q (ok=%v err=%v), want %q", got, ok, err, want)
	}
}

// TestCertCache: a certificate verified once is not verified again while
// the CA bundle is the same, for at most the TTL and never past its
// NotAfter; a refused one is verified every time.
func TestCertCache(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_000_000, 0)}
	ca := []byte("ca-1")
	next := &countingVerifier{}
	c := newCertCache(next, func() []byte { return ca }, clock)
	later := clock.t.Add(time.Hour)
	// carol's certificate expires 2s after the TTL step: remembered 2s.
	carol := certReq("carol", 4, clock.t.Add(certCacheTTL+time.Second+2*time.Second))
	steps := []struct {
		name  string
		do    func()
		req   *http.Request
		want  string
		calls int
	}{
		{"first", nil, certReq("alice", 1, later), "alice", 1},
		{"again", nil, certReq("alice", 1, later), "alice", 1},
		{"other bytes", nil, certReq("alice", 2, later), "alice", 2},
		{"refused", nil, certReq("bad", 3, later), "", 3},
		{"refused again", nil, certReq("bad", 3, later), "", 4},
		{"CA reloaded", func() { ca = []byte("ca-2") }, certReq("alice", 1, later), "alice", 5},
		{"TTL passed", func() { clock.t = clock.t.Add(certCacheTTL + time.Second) }, certReq("alice", 1, later), "alice", 6},
		{"expiring soon", nil, carol, "carol", 7},
		{"within its NotAfter", func() { clock.t = clock.t.Add(time.Second) }, carol, "carol", 7},
		{"past its NotAfter", func() { clock.t = clock.t.Add(2 * time.Second) }, carol, "carol", 8},
	}
	for _, s := range steps {
		if s.do != nil {
			s.do()
		}
		authenticate(t, c, s.req, s.want)
		if next.calls != s.calls {
			t.Fatalf("%s: %d verifications, want %d", s.name, next.calls, s.calls)
		}
	}
}
