package filters

import (
	"context"
	"net/http"
	"strings"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// publicPaths answer anyone, as kube's system:public-info-viewer role
// bound to system:authenticated and system:unauthenticated lets them:
// probes and version checks carry no credentials. So do the console's
// static files (server/console), which hold no data: a browser fetches
// them before the user has logged in, and the page then sends the
// user's credentials with each API request.
var publicPaths = []string{"/livez", "/readyz", "/healthz", "/version", "/console"}

// isPublic reports whether path is a public path or one under it.
func isPublic(path string) bool {
	for _, p := range publicPaths {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// anonymous is who a request without credentials to a public path is,
// even when --anonymous-auth is off.
var anonymous = &authenticator.Response{User: &user.DefaultInfo{
	Name: user.Anonymous, Groups: []string{user.AllUnauthenticated},
}}

// publicAuthenticator lets requests without credentials reach the public
// paths as system:anonymous; elsewhere they stay unauthenticated (401).
// Credentials that fail (an unknown token, a certificate of another CA)
// are refused there too, as kube refuses them even with anonymous auth on.
type publicAuthenticator struct{ next authenticator.Request }

func (a publicAuthenticator) AuthenticateRequest(r *http.Request) (*authenticator.Response, bool, error) {
	resp, ok, err := a.next.AuthenticateRequest(r)
	if err == nil && !ok && isPublic(r.URL.Path) {
		return anonymous, true, nil
	}
	return resp, ok, err
}

// loginPath is where the console redeems its login link's code
// (server/console): the code is the credential, so anyone may send one.
const loginPath = "/console/login"

// publicAuthorizer allows reading the public paths to everyone, so that a
// probe never depends on the roles stored, and sending the console a
// login code.
type publicAuthorizer struct {
	next authorizer.UnconditionalAuthorizer
}

func (a publicAuthorizer) Authorize(ctx context.Context, attr authorizer.Attributes) (authorizer.Decision, string, error) {
	if !attr.IsResourceRequest() && (attr.GetVerb() == "get" || attr.GetVerb() == "head") && isPublic(attr.GetPath()) {
		return authorizer.DecisionAllow, "", nil
	}
	if !attr.IsResourceRequest() && attr.GetVerb() == "post" && attr.GetPath() == loginPath {
		return authorizer.DecisionAllow, "", nil
	}
	return a.next.Authorize(ctx, attr)
}
