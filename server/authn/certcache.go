package authn

import (
	"bytes"
	"crypto/sha256"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/util/cache"
	"k8s.io/apiserver/pkg/authentication/authenticator"
)

// certCacheTTL is how long a verified client certificate is trusted
// without verifying its chain again: as long as a token is
// (tokenSuccessTTL). kube-apiserver verifies on every request, which
// with an ECDSA P-256 chain is one signature check, about 100 µs of CPU
// on this project's machines: more than the rest of the chain.
const certCacheTTL = tokenSuccessTTL

// certCacheSize bounds the certificates remembered; the least recently
// used goes first.
const certCacheSize = 1024

// certCache remembers which client certificate chains next accepted and
// who they named. An entry holds only while the client CA bundle is the
// one it was verified against (a reloaded --client-ca-file forgets it),
// at most certCacheTTL, and never past the NotAfter of a certificate the
// client presented. Failures are not remembered: they are verified again
// and answered as before.
type certCache struct {
	next  authenticator.Request
	ca    func() []byte // the current CA bundle
	cache *cache.LRUExpireCache
	now   func() time.Time
}

// certEntry is what a verification found, and against which CA bundle.
type certEntry struct {
	ca   []byte
	resp *authenticator.Response
}

func newCertCache(next authenticator.Request, ca func() []byte, clock cache.Clock) *certCache {
	return &certCache{next: next, ca: ca, cache: cache.NewLRUExpireCacheWithClock(certCacheSize, clock), now: clock.Now}
}

// wallClock is the time now, for the cache.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

// AuthenticateRequest implements authenticator.Request.
func (c *certCache) AuthenticateRequest(req *http.Request) (*authenticator.Response, bool, error) {
	if req.TLS == nil || len(req.TLS.PeerCertificates) == 0 {
		return c.next.AuthenticateRequest(req)
	}
	key := chainKey(req)
	ca := c.ca()
	if v, ok := c.cache.Get(key); ok {
		if e := v.(certEntry); bytes.Equal(e.ca, ca) {
			return e.resp, true, nil
		}
	}
	resp, ok, err := c.next.AuthenticateRequest(req)
	if ok && err == nil {
		if ttl := c.ttl(req); ttl > 0 {
			c.cache.Add(key, certEntry{ca: ca, resp: resp}, ttl)
		}
	}
	return resp, ok, err
}

// ttl is certCacheTTL, shortened to the first NotAfter of the
// certificates presented.
func (c *certCache) ttl(req *http.Request) time.Duration {
	ttl := certCacheTTL
	now := c.now()
	for _, cert := range req.TLS.PeerCertificates {
		ttl = min(ttl, cert.NotAfter.Sub(now))
	}
	return ttl
}

// chainKey names the certificates a client presented, in order: the
// leaf and the intermediates that its chain may be built with.
func chainKey(req *http.Request) [sha256.Size]byte {
	h := sha256.New()
	for _, cert := range req.TLS.PeerCertificates {
		n := len(cert.Raw)
		h.Write([]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
		h.Write(cert.Raw)
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key
}
