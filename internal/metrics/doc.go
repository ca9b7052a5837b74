// Package metrics owns specd's Prometheus registry: the one that
// /metrics serves. Packages declare their metrics as package-level
// variables with promauto.With(metrics.Registry), so each is registered
// once per process however many servers a test starts.
//
// It is specd's own registry, not prometheus.DefaultRegisterer: the
// embedded etcd registers hundreds of its own series there, which are
// etcd's to publish, not specd's.
package metrics
