package delegated

import (
	"context"
	"net/http"
	"testing"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

type fixedAuthenticator struct{ name string }

func (a fixedAuthenticator) AuthenticateRequest(*http.Request) (*authenticator.Response, bool, error) {
	if a.name == "" {
		return nil, false, nil
	}
	return &authenticator.Response{User: &user.DefaultInfo{Name: a.name}}, true, nil
}

type namedAuthorizer string

func (a namedAuthorizer) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionAllow, string(a), nil
}

// specd's own users are marked and decided by specd; the host's by the
// host; the host's anonymous user only when asked for.
func TestLocalAndHostUsers(t *testing.T) {
	tests := map[string]struct {
		local, host string
		anonymous   bool
		want        string // the user, then who decides
	}{
		"local user":                      {local: "admin", host: "alice", want: "admin local"},
		"host user":                       {host: "alice", want: "alice host"},
		"host anonymous, not asked":       {host: user.Anonymous, want: ""},
		"host anonymous, asked":           {host: user.Anonymous, anonymous: true, want: user.Anonymous + " host"},
		"no one":                          {want: ""},
		"local wins over the front proxy": {local: "admin", host: "forged", want: "admin local"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			d := &Delegation{authn: fixedAuthenticator{tc.host}, authz: namedAuthorizer("host")}
			authn := d.Authenticator(fixedAuthenticator{tc.local}, tc.anonymous)
			resp, ok, err := authn.AuthenticateRequest(&http.Request{})
			got := ""
			if ok && err == nil {
				_, who, _ := d.Authorizer(namedAuthorizer("local")).Authorize(context.Background(), authorizer.AttributesRecord{User: resp.User})
				got = resp.User.GetName() + " " + who
			}
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// A user a local user impersonates is not local.
func TestImpersonatedIsNotLocal(t *testing.T) {
	if !IsLocal(localUser{&user.DefaultInfo{Name: "admin"}}) || IsLocal(&user.DefaultInfo{Name: "admin"}) {
		t.Fatal("IsLocal")
	}
}
