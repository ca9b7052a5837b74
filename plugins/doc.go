// Package plugins will host out-of-process plugins (hashicorp/go-plugin over
// gRPC) for defaulting, validation and reconciliation. Nothing is served
// through it yet; specd serve accepts --plugins so deployments can name the
// directory now.
package plugins
