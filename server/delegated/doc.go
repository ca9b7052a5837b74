// Package delegated is how specd knows who is asking, and what they may
// do, when it serves as an aggregated API server of a Kubernetes cluster
// (the host): it delegates both to the host, as sample-apiserver and
// metrics-server do, with k8s.io/apiserver's own DelegatingAuthenticationOptions
// and DelegatingAuthorizationOptions, their flags and their caches:
//
//   - front-proxy (request-header) client certificates, checked against
//     the CA, allowed names and header names of ConfigMap
//     kube-system/extension-apiserver-authentication, which a controller
//     watches, so a new front-proxy CA is taken without a restart;
//   - client certificates of the cluster's client CA (same ConfigMap);
//   - bearer tokens through TokenReview, cached;
//   - SubjectAccessReview for every other decision, cached, with
//     system:masters and --authorization-always-allow-paths allowed
//     without asking.
//
// specd's own users keep specd's own authentication and RBAC: Delegation
// puts specd's authenticator first and marks the users it names, and
// Authorizer sends their requests to specd's authorizer. Everyone else is
// the host's user, decided by the host.
//
// The X-Remote-* headers of a request that did not come through the
// front proxy never name anyone: only a client certificate of the
// front-proxy CA makes the request-header authenticator read them, and
// the request chain drops them from every request it lets through
// (RequestHeaderConfig).
package delegated
