// Command specd serves Kubernetes-style APIs declared in OpenAPI files.
//
//	specd serve --schemas DIR --data-dir DIR --listen HOST:PORT [--etcd-servers URL,...] [--plugins DIR]
//	specd check --schemas DIR [--previous DIR] [--output text|json]
//	specd bench [flags]      load a running server (see package loadtest)
//	specd version
//
// This package only wires: it is the one place that names the concrete
// storage (etcd, embedded or external) and hands it to the server.
package main
