// Package filters is specd's request chain: the k8s.io/apiserver filters
// kube-apiserver runs (request info, audit, authentication, impersonation,
// max-in-flight or priority and fairness (package fairness), timeout,
// authorization), wrapped around specd's handler
// in kube's order, with a request-info resolver that understands specd's
// URLs and a serializer that writes kube's Status for 401, 403 and 429
// (kube's limits answer 429 in text; specd turns it into a Status).
//
// It owns which paths are public (health and /version answer without
// credentials) and what --insecure-serving means for identity; who a
// credential names and what a user may do are its Config's authenticator
// and authorizer.
package filters
