// Package reviews serves the review APIs that kubectl asks before it
// acts: authorization.k8s.io/v1 SelfSubjectAccessReview,
// SelfSubjectRulesReview and SubjectAccessReview (kubectl auth can-i,
// can-i --list), and authentication.k8s.io/v1 SelfSubjectReview (kubectl
// auth whoami). They are create-only and cluster-scoped, answer from the
// user the request chain (server/filters) put in the context, and store
// nothing.
//
// It owns turning a review's spec into authorizer attributes and the
// answers' shapes; the decisions and rules are its Config's authorizer
// and rule resolver. Groups hands them to server.Config.Extra.
package reviews
