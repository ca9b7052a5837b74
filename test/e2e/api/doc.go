// Package api holds the acceptance tests of the API as clients use it:
// the verbs over plain HTTP and Kubernetes Status answers to bad
// requests, kubectl (get, apply, edit, patch, watch, wait, events,
// config data, cluster-info, applysets) and the OpenAPI documents and
// kubectl explain they feed.
package api
