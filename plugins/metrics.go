package plugins

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/specd-io/specd/internal/metrics"
)

// Results of a call, the "result" label of specd_plugin_calls_total.
const (
	resultOK          = "ok"          // answered
	resultRejected    = "rejected"    // a validation answered with field errors
	resultError       = "error"       // the plugin's function failed, or it broke the protocol
	resultTimeout     = "timeout"     // cut off by the caller's deadline (the process is killed)
	resultCanceled    = "canceled"    // the caller gave up
	resultUnavailable = "unavailable" // not found, not started, or died during the call
)

var (
	callsTotal = promauto.With(metrics.Registry).NewCounterVec(prometheus.CounterOpts{
		Name: "specd_plugin_calls_total",
		Help: "Calls to plugins, by plugin, hook (describe, default, validate, reconcile) and result (ok, rejected, error, timeout, canceled, unavailable).",
	}, []string{"plugin", "hook", "result"})
	callDuration = promauto.With(metrics.Registry).NewHistogramVec(prometheus.HistogramOpts{
		Name:    "specd_plugin_call_duration_seconds",
		Help:    "Duration of calls to plugins, by plugin and hook, including a lazy start.",
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"plugin", "hook"})
	restartsTotal = promauto.With(metrics.Registry).NewCounterVec(prometheus.CounterOpts{
		Name: "specd_plugin_restarts_total",
		Help: "Plugin processes started again after one died or was killed.",
	}, []string{"plugin"})
	pluginUp = promauto.With(metrics.Registry).NewGaugeVec(prometheus.GaugeOpts{
		Name: "specd_plugin_up",
		Help: "1 while the plugin's process runs, else 0.",
	}, []string{"plugin"})
)
