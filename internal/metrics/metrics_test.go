package metrics_test

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/specd-io/specd/internal/metrics"
)

var testCounter = promauto.With(metrics.Registry).NewCounter(prometheus.CounterOpts{
	Name: "specd_metrics_test_total", Help: "A counter this test increments.",
})

func TestHandlerServesRegisteredMetrics(t *testing.T) {
	testCounter.Add(3)
	rec := httptest.NewRecorder()
	metrics.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{"specd_metrics_test_total 3", "go_goroutines", "process_resident_memory_bytes"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
