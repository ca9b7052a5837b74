// Package auth holds the acceptance tests of who may do what: client
// certificates, tokens and OIDC, RBAC and impersonation, serving
// certificates given as files, the audit log, and a walk of every route
// as users with and without a grant.
package auth
