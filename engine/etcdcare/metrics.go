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

// The sizes are kube-apiserver's apiserver_storage_size_bytes and its
// companions, labelled as it labels it; specd reads them from the largest
// member of the cluster.
var (
	dbSize = promauto.With(metrics.Registry).NewGaugeVec(prometheus.GaugeOpts{
		Name: "apiserver_storage_size_bytes",
		Help: "Size of etcd's database file, in bytes (the largest member's).",
	}, []string{"storage_cluster_id"})
	dbSizeInUse = promauto.With(metrics.Registry).NewGaugeVec(prometheus.GaugeOpts{
		Name: "apiserver_storage_size_in_use_bytes",
		Help: "Bytes of etcd's database file that hold live data; the rest is free pages a defragmentation gives back.",
	}, []string{"storage_cluster_id"})
	dbQuota = promauto.With(metrics.Registry).NewGaugeVec(prometheus.GaugeOpts{
		Name: "apiserver_storage_quota_bytes",
		Help: "etcd's --quota-backend-bytes: past it etcd raises its NOSPACE alarm and refuses writes.",
	}, []string{"storage_cluster_id"})
	noSpaceAlarm = promauto.With(metrics.Registry).NewGauge(prometheus.GaugeOpts{
		Name: "apiserver_storage_nospace_alarm",
		Help: "1 while etcd's NOSPACE alarm is raised (writes are refused), else 0.",
	})
	compactions = promauto.With(metrics.Registry).NewCounterVec(prometheus.CounterOpts{
		Name: "apiserver_storage_compactions_total",
		Help: "Compactions of etcd's history specd asked for, by result: done, skipped (compacted already), failed.",
	}, []string{"result"})
	compactedRevision = promauto.With(metrics.Registry).NewGauge(prometheus.GaugeOpts{
		Name: "apiserver_storage_compacted_revision",
		Help: "The revision specd last compacted etcd's history to.",
	})
	defrags = promauto.With(metrics.Registry).NewCounterVec(prometheus.CounterOpts{
		Name: "apiserver_storage_defragmentations_total",
		Help: "Defragmentations of the embedded etcd's database, by result: done, failed.",
	}, []string{"result"})
	defragDuration = promauto.With(metrics.Registry).NewHistogram(prometheus.HistogramOpts{
		Name:    "apiserver_storage_defragmentation_duration_seconds",
		Help:    "How long a defragmentation of the embedded etcd took; requests to etcd wait meanwhile.",
		Buckets: prometheus.ExponentialBuckets(0.01, 2, 14),
	})
	alarmDisarms = promauto.With(metrics.Registry).NewCounter(prometheus.CounterOpts{
		Name: "apiserver_storage_nospace_disarms_total",
		Help: "NOSPACE alarms of the embedded etcd that specd disarmed after freeing space.",
	})
)
