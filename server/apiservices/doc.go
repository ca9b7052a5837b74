// Package apiservices owns the APIServices (apiregistration.k8s.io/v1)
// through which a host cluster's kube-apiserver proxies specd's groups
// to it when specd serves aggregated: one per served group version of
// the schemas, none for a group the host serves itself (specd's built-in
// groups), each pointing at the host Service in front of specd and
// trusting specd's serving CA.
//
// Manifests says what they are, for a registry snapshot; Registrar
// writes them into the host at start and after every accepted reload of
// the schema directory (a serving.Follower), and withdraws those of
// group versions no longer served. It only touches the APIServices it
// labels as its own (ManagedBy and ServiceLabel), so several specds, or
// APIServices someone else made, live beside it.
package apiservices
