// Command specd serves Kubernetes-style APIs declared in OpenAPI files.
//
//	specd serve --schemas DIR [--data-dir DIR] [--listen HOST:PORT] [--etcd-servers URL,...] [--plugins DIR]
//	specd check --schemas DIR [--previous DIR] [--output text|json]
//	specd bench [flags]      load a running server (see package loadtest)
//	specd snapshot save|restore FILE ...
//	specd apiservices --schemas DIR --apiservice-service NAMESPACE/NAME
//	specd version [-o json|yaml] [--short]
//	specd completion bash|zsh|fish|powershell
//
// The commands are spf13/cobra's, with the help, errors and exit codes
// of internal/cliflag (docs/cli.md). This package only parses flags,
// builds, wires and waits for signals. It is the one place that names
// the concrete storage (etcd, embedded or external) and the plugin host,
// and hands them to the engine and the server; what it builds lives in
// importable packages (serving, engine and its subpackages, plugins,
// server).
package main
