// Package aggregated opens what specd needs of a host cluster when it
// serves as an aggregated API server behind the host's kube-apiserver
// (docs/aggregation.md): the delegation of authentication and
// authorization (package delegated), a client of the host, the host's
// namespaces (engine/namespace/host) and events, and the registrar that
// keeps the APIServices in step with the schemas (package apiservices).
// It owns the flags of the APIServices and what serving aggregated
// changes in specd: which namespaces, events and owners are the host's.
//
// A nil *Host is standalone serving: each of its methods then answers
// what specd does on its own, so that serving wires one way.
package aggregated
