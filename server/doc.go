// Package server is specd's HTTP front: the routes (gorilla/mux) of the
// Kubernetes REST conventions, discovery, the OpenAPI documents kubectl
// and client generators read (built by server/openapi, served by
// openapi.go), content negotiation (JSON,
// YAML, meta.k8s.io Table, and protobuf for the kinds with k8s.io/api Go
// types, converted at the edge by protobuf.go), and the one place that
// turns an error into a Kubernetes Status.
//
// It holds no objects and no schema state of its own: every request reads
// one registry snapshot and hands raw JSON bytes to the engine (its
// engine.Objects), whose answers it writes back as they are.
package server
