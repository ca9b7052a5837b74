package authn

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"sync"
	"time"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
)

// How long a login link and the token it is redeemed for are good.
const (
	LinkTTL    = 10 * time.Minute
	SessionTTL = 8 * time.Hour
)

// LinkExtra is the user-info extra key a login link's user carries, so
// that the audit log tells its requests from the admin certificate's.
const LinkExtra = "specd.io/login"

// ErrLinkRefused is Redeem's answer to a code that is wrong, used or
// expired, without saying which.
var ErrLinkRefused = errors.New("authn: the login link is wrong, used or expired")

// LoginLink is the console's login link, as Jupyter prints one: a code
// specd logs at start, redeemed once, within LinkTTL, for a bearer token
// that authenticates as the admin (the generated admin certificate's
// user and group) for SessionTTL. Code and tokens are held only in this
// process's memory: a restart makes a new link and forgets the tokens.
type LoginLink struct {
	now      func() time.Time
	user     user.Info
	mu       sync.Mutex
	code     string // "" once redeemed
	expires  time.Time
	sessions map[string]time.Time // token -> expiry
}

// NewLoginLink makes a link that logs in as name in groups, good for
// LinkTTL from now() on.
func NewLoginLink(now func() time.Time, name string, groups ...string) *LoginLink {
	return &LoginLink{
		now:      now,
		user:     &user.DefaultInfo{Name: name, Groups: groups, Extra: map[string][]string{LinkExtra: {"console-link"}}},
		code:     rand.Text() + rand.Text(),
		expires:  now().Add(LinkTTL),
		sessions: map[string]time.Time{},
	}
}

// Code is the link's code and when it expires; "" for no link (nil)
// or one redeemed.
func (l *LoginLink) Code() (string, time.Time) {
	if l == nil {
		return "", time.Time{}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.code, l.expires
}

// Redeem trades the code for a bearer token, once: the code is revoked
// by its first redemption and by its expiry. A wrong code revokes
// nothing (it is 256 random bits: guessing is no threat).
func (l *LoginLink) Redeem(code string) (string, time.Time, error) {
	if l == nil {
		return "", time.Time{}, ErrLinkRefused
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if l.code == "" || now.After(l.expires) || subtle.ConstantTimeCompare([]byte(code), []byte(l.code)) != 1 {
		return "", time.Time{}, ErrLinkRefused
	}
	l.code = ""
	token := rand.Text() + rand.Text()
	l.sessions[token] = now.Add(SessionTTL)
	return token, l.sessions[token], nil
}

// AuthenticateToken implements authenticator.Token for the tokens Redeem
// gave, until they expire.
func (l *LoginLink) AuthenticateToken(_ context.Context, token string) (*authenticator.Response, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	expires, ok := l.sessions[token]
	if !ok {
		return nil, false, nil
	}
	if l.now().After(expires) {
		delete(l.sessions, token)
		return nil, false, nil
	}
	return &authenticator.Response{User: l.user}, true, nil
}
