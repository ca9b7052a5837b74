package metrics

import (
	"net/http"
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

// kubeFilters are the metrics of the kube-apiserver filters specd runs,
// which record them in component-base's legacy registry: API Priority and
// Fairness (apiserver_flowcontrol_*, registered by server/filters/fairness).
// The rest of that registry is left out: its Go and process collectors
// would repeat Registry's.
var kubeFilters = prefixed{gatherer: legacyregistry.DefaultGatherer, prefix: "apiserver_flowcontrol_"}

// Handler serves Registry and kubeFilters in the Prometheus text format.
func Handler() http.Handler {
	return promhttp.HandlerFor(prometheus.Gatherers{Registry, kubeFilters}, promhttp.HandlerOpts{})
}

// prefixed is the metric families of a gatherer whose names start with
// prefix.
type prefixed struct {
	gatherer prometheus.Gatherer
	prefix   string
}

func (p prefixed) Gather() ([]*dto.MetricFamily, error) {
	all, err := p.gatherer.Gather()
	var out []*dto.MetricFamily
	for _, f := range all {
		if strings.HasPrefix(f.GetName(), p.prefix) {
			out = append(out, f)
		}
	}
	return out, err
}
