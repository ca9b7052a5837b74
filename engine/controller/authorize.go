package controller

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/specd-io/specd/plugins/hook"
)

// Authorizer decides whether the user in a reconciler's context may make
// one call, as k8s.io/apiserver's authorizer.Authorizer (which satisfies
// it) decides for a REST request: RBAC, in a secure specd.
type Authorizer interface {
	Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error)
}

// WithAuthorizer returns a Client that asks a before every call, as the
// server's authorization filter asks before every request; nil allows
// everything, as specd without authorization does.
func (c *Client) WithAuthorizer(a Authorizer) *Client {
	cc := *c
	cc.authz = a
	return &cc
}

// call names one Client call as a REST request would: the verb and the
// object. The namespace is the one given, as a URL gives it, whatever
// the resource's scope.
type call struct {
	verb                 string
	namespace, name, sub string
}

// authorize asks the Authorizer whether the user in ctx may make c on r:
// nil when allowed, otherwise kube's 403 Forbidden (or a 500 when the
// authorizer failed, as the server's authorization filter answers).
func (c *Client) authorize(ctx context.Context, r hook.ResourceRef, cl call) error {
	if c.authz == nil {
		return nil
	}
	attrs := authorizer.AttributesRecord{
		Verb: cl.verb, Namespace: cl.namespace, Name: cl.name,
		APIGroup: r.Group, APIVersion: r.Version, Resource: r.Resource, Subresource: cl.sub,
		ResourceRequest: true,
	}
	u, ok := request.UserFrom(ctx)
	if !ok || u == nil {
		// Callbacks always carry the plugin's user; a call without one is
		// nobody's and gets nothing.
		return responsewriters.ForbiddenStatusError(attrs, "no user in the request")
	}
	attrs.User = u
	decision, reason, err := c.authz.Authorize(ctx, attrs)
	switch {
	case decision == authorizer.DecisionAllow:
		return nil
	case err != nil:
		return apierrors.NewInternalError(fmt.Errorf("authorize %s %s: %w", cl.verb, r.Resource, err))
	}
	return responsewriters.ForbiddenStatusError(attrs, reason)
}
