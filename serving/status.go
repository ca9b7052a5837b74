package serving

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/specd-io/specd/internal/metrics"
	"github.com/specd-io/specd/schemas"
)

var (
	reloadsTotal = promauto.With(metrics.Registry).NewCounterVec(prometheus.CounterOpts{
		Name: "specd_schema_reloads_total",
		Help: "Reloads of the schema directory, by result: applied, unchanged, failed (did not load) or refused (breaking change).",
	}, []string{"result"})
	reloadDuration = promauto.With(metrics.Registry).NewHistogram(prometheus.HistogramOpts{
		Name:    "specd_schema_reload_duration_seconds",
		Help:    "Time to load, check and apply the schema directory.",
		Buckets: prometheus.ExponentialBuckets(0.005, 2.5, 10),
	})
	reloadErrors = promauto.With(metrics.Registry).NewGauge(prometheus.GaugeOpts{
		Name: "specd_schema_reload_errors",
		Help: "Problems of the last reload of the schema directory; 0 when it succeeded.",
	})
	reloadLastSuccess = promauto.With(metrics.Registry).NewGauge(prometheus.GaugeOpts{
		Name: "specd_schema_reload_last_success_timestamp_seconds",
		Help: "When the schema directory last loaded (or was found unchanged), in Unix seconds.",
	})
)

func observeReload(result string, took time.Duration) {
	reloadsTotal.WithLabelValues(result).Inc()
	reloadDuration.Observe(took.Seconds())
}

// ReadyCheck is /readyz's schemas line: nil when the last reload
// succeeded. It is informational: a failed reload leaves the previous
// schemas serving, so it does not make specd unready; /readyz?verbose
// shows the error.
func (s *Set) ReadyCheck() error { return s.status.check() }

// reloadStatus is the outcome of the last reload, for /readyz?verbose.
type reloadStatus struct {
	mu      sync.Mutex
	lastErr error
	at      time.Time
	trigger string
}

func (s *reloadStatus) succeeded(at time.Time, trigger string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastErr, s.at, s.trigger = nil, at, trigger
	reloadErrors.Set(0)
	reloadLastSuccess.Set(float64(at.UnixNano()) / 1e9)
}

func (s *reloadStatus) failed(at time.Time, trigger string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastErr, s.at, s.trigger = err, at, trigger
	reloadErrors.Set(float64(problemCount(err)))
}

// check is the schema reload's readiness check: nil when the last reload
// succeeded. A failed reload leaves the previous schemas serving, so it
// does not make specd unready; /readyz?verbose shows it.
func (s *reloadStatus) check() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lastErr == nil {
		return nil
	}
	return fmt.Errorf("the reload at %s (%s) failed; the previous schemas are served: %s",
		s.at.UTC().Format(time.RFC3339), s.trigger, oneLine(s.lastErr))
}

// problemCount is how many problems err lists (1 for any other error).
func problemCount(err error) int {
	var le *schemas.LoadError
	if errors.As(err, &le) {
		return len(le.Problems)
	}
	var re *refusedError
	if errors.As(err, &re) {
		return len(re.problems)
	}
	return 1
}

// oneLine joins the lines of an error's message with "; ".
func oneLine(err error) string {
	var parts []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}
