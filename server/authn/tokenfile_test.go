package authn_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/specd-io/specd/server/authn"
)

const tokens = `token-alice,alice,uid-alice,"dev,ops"
token-bob,bob,uid-bob
`

func writeFile(t testing.TB, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func bearer(token string) *http.Request {
	req := httptest.NewRequest(http.MethodGet, "/api", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	return req
}

func TestTokenFile(t *testing.T) {
	a := newAuthenticator(t, authn.Config{TokenAuthFile: writeFile(t, "tokens.csv", tokens)})
	tests := map[string]struct {
		token, user, uid string
		groups           []string
	}{
		"groups":    {token: "token-alice", user: "alice", uid: "uid-alice", groups: []string{"dev", "ops", "system:authenticated"}},
		"no groups": {token: "token-bob", user: "bob", uid: "uid-bob", groups: []string{"system:authenticated"}},
		"unknown":   {token: "token-carol"},
		"a prefix":  {token: "token-"},
		"a user":    {token: "alice"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			resp, ok, err := a.AuthenticateRequest(bearer(tc.token))
			if tc.user == "" {
				if ok || err == nil {
					t.Fatalf("accepted: ok=%v err=%v", ok, err)
				}
				return
			}
			wantUser(t, resp, ok, err, tc.user, tc.groups)
			if got := resp.User.GetUID(); got != tc.uid {
				t.Errorf("uid %q, want %q", got, tc.uid)
			}
		})
	}
}

func TestTokenFileErrors(t *testing.T) {
	tests := map[string]string{
		"two columns":    "token-alice,alice,uid-alice\ntoken-bob,bob\n",
		"a broken quote": "token-alice,alice,\"uid\n",
	}
	for name, content := range tests {
		t.Run(name, func(t *testing.T) {
			path := writeFile(t, "tokens.csv", content)
			_, err := authn.New(t.Context(), authn.Config{TokenAuthFile: path})
			if err == nil || !strings.Contains(err.Error(), "--token-auth-file "+path) {
				t.Fatalf("error %v, want one naming --token-auth-file %s", err, path)
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "absent.csv")
		_, err := authn.New(t.Context(), authn.Config{TokenAuthFile: path})
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Fatalf("error %v, want one naming %s", err, path)
		}
	})
}
