package controller

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"k8s.io/client-go/util/workqueue"

	"github.com/specd-io/specd/internal/metrics"
)

// The outcomes of one reconcile: the result label.
const (
	outcomeSuccess = "success"
	outcomeError   = "error"   // retried with backoff
	outcomeRequeue = "requeue" // the plugin asked for a retry with backoff
)

var (
	reconciles = promauto.With(metrics.Registry).NewCounterVec(prometheus.CounterOpts{
		Name: "specd_reconcile_total",
		Help: "Reconciles of an object by a plugin, by result: success, error (retried with backoff), requeue (the plugin asked to be called again).",
	}, []string{"plugin", "resource", "result"})
	reconcileDuration = promauto.With(metrics.Registry).NewHistogramVec(prometheus.HistogramOpts{
		Name:    "specd_reconcile_duration_seconds",
		Help:    "Time one reconcile took: reading the object, the plugin call and the writes of finalizers and status.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
	}, []string{"plugin", "resource"})
)

func observeReconcile(plugin, resource, outcome string, start time.Time) {
	reconciles.WithLabelValues(plugin, resource, outcome).Inc()
	reconcileDuration.WithLabelValues(plugin, resource).Observe(time.Since(start).Seconds())
}

// The work queues' own metrics, as client-go names them (workqueue_*),
// labelled by the queue's name: the resource.
var (
	queueDepth = promauto.With(metrics.Registry).NewGaugeVec(prometheus.GaugeOpts{
		Name: "specd_workqueue_depth", Help: "Keys waiting in a controller's work queue.",
	}, []string{"name"})
	queueAdds = promauto.With(metrics.Registry).NewCounterVec(prometheus.CounterOpts{
		Name: "specd_workqueue_adds_total", Help: "Keys added to a controller's work queue.",
	}, []string{"name"})
	queueLatency = promauto.With(metrics.Registry).NewHistogramVec(prometheus.HistogramOpts{
		Name: "specd_workqueue_queue_duration_seconds", Help: "How long a key waited in a work queue before a worker took it.",
		Buckets: prometheus.ExponentialBuckets(0.0001, 4, 12),
	}, []string{"name"})
	queueWork = promauto.With(metrics.Registry).NewHistogramVec(prometheus.HistogramOpts{
		Name: "specd_workqueue_work_duration_seconds", Help: "How long a worker took over a key.",
		Buckets: prometheus.ExponentialBuckets(0.0001, 4, 12),
	}, []string{"name"})
	queueUnfinished = promauto.With(metrics.Registry).NewGaugeVec(prometheus.GaugeOpts{
		Name: "specd_workqueue_unfinished_work_seconds", Help: "Seconds of work under way and not yet done, summed over the workers.",
	}, []string{"name"})
	queueLongest = promauto.With(metrics.Registry).NewGaugeVec(prometheus.GaugeOpts{
		Name: "specd_workqueue_longest_running_processor_seconds", Help: "How long the longest-running worker has been at its key.",
	}, []string{"name"})
	queueRetries = promauto.With(metrics.Registry).NewCounterVec(prometheus.CounterOpts{
		Name: "specd_workqueue_retries_total", Help: "Keys put back on a work queue with backoff.",
	}, []string{"name"})
)

// queueMetrics gives client-go's work queues specd's registry.
type queueMetrics struct{}

var _ workqueue.MetricsProvider = queueMetrics{}

// NewDepthMetric starts at 0: a new queue (a new term as leader) is empty.
func (queueMetrics) NewDepthMetric(name string) workqueue.GaugeMetric {
	g := queueDepth.WithLabelValues(name)
	g.Set(0)
	return g
}

func (queueMetrics) NewAddsMetric(name string) workqueue.CounterMetric {
	return queueAdds.WithLabelValues(name)
}

func (queueMetrics) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return queueLatency.WithLabelValues(name)
}

func (queueMetrics) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return queueWork.WithLabelValues(name)
}

func (queueMetrics) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return queueUnfinished.WithLabelValues(name)
}

func (queueMetrics) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return queueLongest.WithLabelValues(name)
}

func (queueMetrics) NewRetriesMetric(name string) workqueue.CounterMetric {
	return queueRetries.WithLabelValues(name)
}
