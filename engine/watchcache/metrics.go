package watchcache

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/specd-io/specd/internal/metrics"
)

// runningCaches counts the caches that run: each holds one storage watch.
var runningCaches = promauto.With(metrics.Registry).NewGauge(prometheus.GaugeOpts{
	Name: "specd_watch_caches",
	Help: "Watch caches running: one per resource used since it was served (or since its cache went idle), each with one etcd watch.",
})
