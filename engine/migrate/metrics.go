package migrate

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/specd-io/specd/internal/metrics"
	"github.com/specd-io/specd/schemas"
)

// The outcomes of one object's migration: the result label.
const (
	resultMigrated = "migrated" // rewritten in the storage version
	resultCurrent  = "current"  // already in it
	resultGone     = "gone"     // deleted before the migration got there
	resultFailed   = "failed"   // left in an old version (logged)
)

var (
	migrationObjects = promauto.With(metrics.Registry).NewCounterVec(prometheus.CounterOpts{
		Name: "specd_storage_migration_objects_total",
		Help: "Objects a storage version migration examined, by outcome: migrated, current (already in the storage version), gone (deleted meanwhile), failed.",
	}, []string{"group", "resource", "result"})
	migrationConflicts = promauto.With(metrics.Registry).NewCounterVec(prometheus.CounterOpts{
		Name: "specd_storage_migration_conflicts_total",
		Help: "Storage version migration writes that lost to a concurrent write and were read again.",
	}, []string{"group", "resource"})
	migrationPending = promauto.With(metrics.Registry).NewGaugeVec(prometheus.GaugeOpts{
		Name: "specd_storage_migration_pending",
		Help: "Objects the running storage version migration of a resource has still to examine.",
	}, []string{"group", "resource"})
	migrationDone = promauto.With(metrics.Registry).NewGaugeVec(prometheus.GaugeOpts{
		Name: "specd_storage_migration_done",
		Help: "1 when every stored object of a resource is in its storage version, 0 while a migration is under way or left objects behind.",
	}, []string{"group", "resource"})
)

// migrationMetrics are the series of one resource.
type migrationMetrics struct {
	group, resource string
}

func metricsFor(r *schemas.Resource) migrationMetrics {
	return migrationMetrics{group: r.Group, resource: r.Plural}
}

func (m migrationMetrics) objects(result string) {
	migrationObjects.WithLabelValues(m.group, m.resource, result).Inc()
}

func (m migrationMetrics) conflict() {
	migrationConflicts.WithLabelValues(m.group, m.resource).Inc()
}

func (m migrationMetrics) pending(n int64) {
	migrationPending.WithLabelValues(m.group, m.resource).Set(float64(max(n, 0)))
}

func (m migrationMetrics) started() {
	migrationDone.WithLabelValues(m.group, m.resource).Set(0)
}

func (m migrationMetrics) finished() {
	migrationPending.WithLabelValues(m.group, m.resource).Set(0)
	migrationDone.WithLabelValues(m.group, m.resource).Set(1)
}
