package etcdcare

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/specd-io/specd/internal/metrics"
)

// The outcomes of a compaction or a defragmentation: the result label.
const (
	resultDone    = "done"
	resultSkipped = "skipped" // compacted already, to that revision or past it
	resultFailed  = "failed"
)

// factory registers on specd's registry.
var factory = promauto.With(metrics.Registry)

// The sizes are kube-apiserver's apiserver_storage_size_bytes and its
// companions, labelled as it labels it; specd reads them from the largest
// member of the cluster.
var (
	dbSize = sizeGauge("apiserver_storage_size_bytes",
		"Size of etcd's database file, in bytes (the largest member's).")
	dbSizeInUse = sizeGauge("apiserver_storage_size_in_use_bytes",
		"Bytes of etcd's database file that hold live data; the rest is free pages a defragmentation gives back.")
	dbQuota = sizeGauge("apiserver_storage_quota_bytes",
		"etcd's --quota-backend-bytes: past it etcd raises its NOSPACE alarm and refuses writes.")
	noSpaceAlarm = factory.NewGauge(prometheus.GaugeOpts{Name: "apiserver_storage_nospace_alarm",
		Help: "1 while etcd's NOSPACE alarm is raised (writes are refused), else 0."})
	compactedRevision = factory.NewGauge(prometheus.GaugeOpts{Name: "apiserver_storage_compacted_revision",
		Help: "The revision specd last compacted etcd's history to."})
)

// The runs of compaction and defragmentation, and what came of them.
var (
	compactions = resultCounter("apiserver_storage_compactions_total",
		"Compactions of etcd's history specd asked for, by result: done, skipped (compacted already), failed.")
	defrags = resultCounter("apiserver_storage_defragmentations_total",
		"Defragmentations of the embedded etcd's database, by result: done, failed.")
	defragDuration = factory.NewHistogram(prometheus.HistogramOpts{Name: "apiserver_storage_defragmentation_duration_seconds",
		Help:    "How long a defragmentation of the embedded etcd took; requests to etcd wait meanwhile.",
		Buckets: prometheus.ExponentialBuckets(0.01, 2, 14)})
	alarmDisarms = factory.NewCounter(prometheus.CounterOpts{Name: "apiserver_storage_nospace_disarms_total",
		Help: "NOSPACE alarms of the embedded etcd that specd disarmed after freeing space."})
)

// sizeGauge is a size of etcd's database, by kube's storage_cluster_id.
func sizeGauge(name, help string) *prometheus.GaugeVec {
	return factory.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, []string{"storage_cluster_id"})
}

// resultCounter counts runs by their result (resultDone, …).
func resultCounter(name, help string) *prometheus.CounterVec {
	return factory.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, []string{"result"})
}
