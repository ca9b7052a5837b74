package metrics

import (
	"net/http"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/component-base/metrics/legacyregistry"
)

// Registry holds every specd metric, with the Go runtime's and the
// process's.
var Registry = newRegistry()

func newRegistry() *prometheus.Registry {
	r := prometheus.NewRegistry()
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return r
}

// kubeFilters are the metrics of the kube-apiserver code specd runs,
// which records them in component-base's legacy registry: API Priority
// and Fairness (apiserver_flowcontrol_*, registered by
// server/filters/fairness) and the request metrics of k8s.io/apiserver's
// endpoints/metrics (apiserver_request_total and the rest, registered by
// server/filters), under the names kube-apiserver publishes them. The
// rest of that registry is left out: its Go and process collectors would
// repeat Registry's.
var kubeFilters = prefixed{gatherer: legacyregistry.DefaultGatherer, prefixes: []string{
	"apiserver_flowcontrol_",
	"apiserver_request_", // _total, _duration_seconds, _sli_duration_seconds, _terminations_total, ...
	"apiserver_response_sizes",
	"apiserver_current_inflight_requests",
	"apiserver_current_inqueue_requests",
	"apiserver_longrunning_requests",
	"apiserver_selfrequest_total",
}}

// Handler serves Registry and kubeFilters in the Prometheus text format.
func Handler() http.Handler {
	return promhttp.HandlerFor(prometheus.Gatherers{Registry, kubeFilters}, promhttp.HandlerOpts{})
}

// prefixed is the metric families of a gatherer whose names start with
// one of prefixes.
type prefixed struct {
	gatherer prometheus.Gatherer
	prefixes []string
}

func (p prefixed) Gather() ([]*dto.MetricFamily, error) {
	all, err := p.gatherer.Gather()
	var out []*dto.MetricFamily
	for _, f := range all {
		if slices.ContainsFunc(p.prefixes, func(pre string) bool { return strings.HasPrefix(f.GetName(), pre) }) {
			out = append(out, f)
		}
	}
	return out, err
}
