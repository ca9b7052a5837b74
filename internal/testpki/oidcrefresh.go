package testpki

import (
	"crypto/rand"
	"sync"
)

// refreshTokens are the refresh tokens an Issuer has issued, each for
// the grant of its login. A token is used once: the refresh grant
// answers a new one (rotation, as issuers do for public clients).
type refreshTokens struct {
	mu        sync.Mutex
	byToken   map[string]grant
	refreshed int
}

// issue answers a new refresh token for g.
func (rt *refreshTokens) issue(g grant) string {
	token := rand.Text()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.byToken[token] = g
	return token
}

// redeem takes token for clientID, once: ok is false for a token
// unknown, used, revoked or issued to another client.
func (rt *refreshTokens) redeem(token, clientID string) (grant, bool) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	g, ok := rt.byToken[token]
	delete(rt.byToken, token)
	if !ok || g.clientID != clientID {
		return grant{}, false
	}
	rt.refreshed++
	return g, true
}

func (rt *refreshTokens) count() int {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.refreshed
}

func (rt *refreshTokens) revokeAll() {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	clear(rt.byToken)
}
