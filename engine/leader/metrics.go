package leader

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/specd-io/specd/internal/metrics"
)

var leaderGauge = promauto.With(metrics.Registry).NewGaugeVec(prometheus.GaugeOpts{
	Name: "specd_leader",
	Help: "1 while this specd holds the election named by the label (background: it runs the garbage collector, storage migration, namespace cleanup and the reconcilers), else 0.",
}, []string{"election"})
