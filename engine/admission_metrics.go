package engine

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/specd-io/specd/internal/metrics"
)

// admissionFailures counts what the failure policy did; the plugin host
// counts the calls themselves (specd_plugin_calls_total).
var admissionFailures = promauto.With(metrics.Registry).NewCounterVec(prometheus.CounterOpts{
	Name: "specd_plugin_admission_failures_total",
	Help: "Writes whose defaulting (hook=default) or validation (hook=validate) plugin could not answer, by the binding's failurePolicy: Fail (the write was refused with a 500) or Ignore (it went on without the plugin).",
}, []string{"plugin", "hook", "policy"})
