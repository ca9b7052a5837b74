package authn_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/specd-io/specd/server/authn"
)

// clock is a time a test moves by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// TestLoginLink: the code is redeemed once, within LinkTTL, for a token
// that is the admin until SessionTTL; a wrong code revokes nothing.
func TestLoginLink(t *testing.T) {
	tests := map[string]struct {
		after   time.Duration // from the link's making to its redemption
		wrong   bool          // a wrong code tried first
		redeems bool
	}{
		"at once":               {redeems: true},
		"after a wrong code":    {wrong: true, redeems: true},
		"just before expiry":    {after: authn.LinkTTL, redeems: true},
		"after expiry":          {after: authn.LinkTTL + time.Second},
		"long after the expiry": {after: 24 * time.Hour},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := &clock{t: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
			l := authn.NewLoginLink(c.now, "specd-admin", "system:masters")
			code, expires := l.Code()
			if len(code) < 40 || !expires.Equal(c.t.Add(authn.LinkTTL)) {
				t.Fatalf("code %q expiring %v", code, expires)
			}
			c.t = c.t.Add(tc.after)
			if tc.wrong {
				if _, _, err := l.Redeem(code[:len(code)-1] + "x"); !errors.Is(err, authn.ErrLinkRefused) {
					t.Fatalf("a wrong code: %v, want refused", err)
				}
			}
			token, _, err := l.Redeem(code)
			if !tc.redeems {
				if !errors.Is(err, authn.ErrLinkRefused) {
					t.Fatalf("redeem: %v, want refused", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := l.Redeem(code); !errors.Is(err, authn.ErrLinkRefused) {
				t.Errorf("a second redemption: %v, want refused", err)
			}
			if code, _ := l.Code(); code != "" {
				t.Errorf("the code after redemption: %q, want none", code)
			}
			checkSession(t, l, c, token)
		})
	}
}

// checkSession: token is the admin until SessionTTL has passed.
func checkSession(t *testing.T, l *authn.LoginLink, c *clock, token string) {
	t.Helper()
	resp, ok, err := l.AuthenticateToken(context.Background(), token)
	if err != nil || !ok || resp.User.GetName() != "specd-admin" || resp.User.GetGroups()[0] != "system:masters" {
		t.Fatalf("the token: %v %v %v", resp, ok, err)
	}
	if got := resp.User.GetExtra()[authn.LinkExtra]; len(got) != 1 {
		t.Errorf("extra %s: %v", authn.LinkExtra, got)
	}
	if _, ok, _ := l.AuthenticateToken(context.Background(), token+"x"); ok {
		t.Error("another token is accepted")
	}
	c.t = c.t.Add(authn.SessionTTL + time.Second)
	if _, ok, _ := l.AuthenticateToken(context.Background(), token); ok {
		t.Error("the token is accepted after SessionTTL")
	}
}
