package delegated

import (
	"context"
	"fmt"
	"net/http"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authentication/request/union"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
)

// Delegation is authentication and authorization by the host cluster.
type Delegation struct {
	authn         authenticator.Request
	authz         authorizer.UnconditionalAuthorizer
	requestHeader *authenticatorfactory.RequestHeaderConfig
	clientCA      dynamiccertificates.CAContentProvider
}

// New builds the delegation of f with the delegating options' ApplyTo:
// it reads the host's ConfigMap kube-system/extension-apiserver-authentication
// once (failing unless --authentication-tolerate-lookup-failure), and
// makes the controllers that follow it. They run with the serving TLS,
// which must be given ClientCA.
func New(f *Flags) (*Delegation, error) {
	authn := *f.Authentication
	if authn.RemoteKubeConfigFile == "" {
		authn.RemoteKubeConfigFile = f.Kubeconfig
	}
	authz := *f.Authorization
	if authz.RemoteKubeConfigFile == "" {
		authz.RemoteKubeConfigFile = f.Kubeconfig
	}
	var info server.AuthenticationInfo
	var serving server.SecureServingInfo
	if err := authn.ApplyTo(&info, &serving, nil); err != nil {
		return nil, fmt.Errorf("delegated authentication: %w", err)
	}
	var authzInfo server.AuthorizationInfo
	if err := authz.ApplyTo(&authzInfo); err != nil {
		return nil, fmt.Errorf("delegated authorization: %w", err)
	}
	return &Delegation{authn: info.Authenticator, authz: authzInfo.Authorizer,
		requestHeader: info.RequestHeaderConfig, clientCA: serving.ClientCA}, nil
}

// ClientCA are the CAs of the client certificates the host's users and
// front proxy present: the serving TLS asks for certificates of these
// (a Go client sends none of a CA not asked for) and runs their
// controllers. Nil when there are none.
func (d *Delegation) ClientCA() dynamiccertificates.CAContentProvider { return d.clientCA }

// RequestHeaderConfig is the front proxy's header names, for the request
// chain to drop from every request.
func (d *Delegation) RequestHeaderConfig() *authenticatorfactory.RequestHeaderConfig {
	return d.requestHeader
}

// Authenticator is local, whose users are specd's own, then the host's
// authenticators. A request without credentials is the host's
// system:anonymous only with anonymous.
func (d *Delegation) Authenticator(local authenticator.Request, anonymous bool) authenticator.Request {
	host := d.authn
	if !anonymous {
		host = noAnonymous{host}
	}
	if local == nil {
		return host
	}
	return union.New(localUsers{local}, host)
}

// Authorizer decides specd's own users' requests with local, and the
// host's users' with the host (SubjectAccessReview, cached).
func (d *Delegation) Authorizer(local authorizer.UnconditionalAuthorizer) authorizer.UnconditionalAuthorizer {
	return split{local: local, host: d.authz}
}

// localUser is a user specd's own authenticator named.
type localUser struct{ user.Info }

// IsLocal reports whether u is one of specd's own users. A user
// impersonated by one is not: impersonation makes a new user.
func IsLocal(u user.Info) bool {
	_, ok := u.(localUser)
	return ok
}

// localUsers marks the users next names as specd's own.
type localUsers struct{ next authenticator.Request }

func (a localUsers) AuthenticateRequest(r *http.Request) (*authenticator.Response, bool, error) {
	resp, ok, err := a.next.AuthenticateRequest(r)
	if !ok || err != nil {
		return resp, ok, err
	}
	marked := *resp
	marked.User = localUser{resp.User}
	return &marked, true, nil
}

// noAnonymous turns the delegating authenticator's anonymous user (it
// always adds one) back into no user.
type noAnonymous struct{ next authenticator.Request }

func (a noAnonymous) AuthenticateRequest(r *http.Request) (*authenticator.Response, bool, error) {
	resp, ok, err := a.next.AuthenticateRequest(r)
	if ok && err == nil && resp.User.GetName() == user.Anonymous {
		return nil, false, nil
	}
	return resp, ok, err
}

// split sends each decision to the authorizer of its user.
type split struct {
	local authorizer.UnconditionalAuthorizer
	host  authorizer.UnconditionalAuthorizer
}

func (s split) Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if a.GetUser() != nil && IsLocal(a.GetUser()) {
		return s.local.Authorize(ctx, a)
	}
	decision, reason, err := s.host.Authorize(ctx, a)
	if err != nil && decision != authorizer.DecisionAllow {
		// The request chain answers 500 with this message: say that
		// the host could not be asked, not that specd failed.
		err = fmt.Errorf("the host cluster could not decide (SubjectAccessReview): %w", err)
	}
	return decision, reason, err
}
