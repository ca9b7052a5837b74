package statusapi

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/memstorage"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/serving"
)

// The group and version of specd's own resources.
const (
	Group   = "status.specd.io"
	Version = "v1alpha1"
)

// Prefix is the key prefix of the group's objects for a Store with
// keys: where memstorage.Route sends them.
func Prefix(keys engine.Keys) string { return keys.Group(Group) }

// Plugin is the state of one plugin, as plugins.Host.Health reports it.
type Plugin = hook.Health

// Config is what the objects are built from and where they go.
type Config struct {
	// Memory keeps the objects: the storage Route puts under Prefix.
	Memory *memstorage.Storage
	// Keys are the Store's keys.
	Keys engine.Keys
	// Schemas is the served set: its files, registry and reloads.
	Schemas *serving.Set
	// SchemaDir is the schema directory: files are named relative to it.
	SchemaDir string
	// Storage holds the migration states (engine/migrate).
	Storage storage.Storage
	// Plugins reports the plugins' state; nil for none.
	Plugins func() []Plugin
	// PluginInterval is how often Plugins is read; a second when 0.
	PluginInterval time.Duration
	// Cluster reads the replicas' election and the etcd members; nil
	// for neither.
	Cluster Cluster
	// ClusterInterval is how often Cluster is read; DefaultClusterInterval
	// when 0.
	ClusterInterval time.Duration
	// Logger gets the writes that fail; slog.Default() when nil.
	Logger *slog.Logger
}

// DefaultClusterInterval is how often the election and etcd are read: a
// new leader shows within it.
const DefaultClusterInterval = 2 * time.Second

// Start writes the objects and keeps them current until ctx ends or the
// returned stop is called, which waits for the writer to end.
func Start(ctx context.Context, cfg Config) (stop func()) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.PluginInterval <= 0 {
		cfg.PluginInterval = time.Second
	}
	if cfg.ClusterInterval <= 0 {
		cfg.ClusterInterval = DefaultClusterInterval
	}
	ctx, cancel := context.WithCancel(ctx)
	p := newPublisher(cfg)
	var wg sync.WaitGroup
	migrations := make(chan []migrationObject, 1)
	wg.Go(func() { watchMigrations(ctx, cfg, migrations) })
	wg.Go(func() { p.run(ctx, migrations) })
	return func() {
		cancel()
		wg.Wait()
	}
}

// reloadGap is the least time between two passes after reloads. A pass
// builds the objects of every schema file and resource, so once per CRD
// of a burst of thousands it was a sixth of specd's CPU; a reload after a
// quiet second is still written at once.
const reloadGap = time.Second

// run writes every kind, then each again when what it is built from
// changes: a reload, the plugins' state, a migration state; and the
// election and etcd every ClusterInterval.
func (p *publisher) run(ctx context.Context, migrations <-chan []migrationObject) {
	tick := time.NewTicker(p.cfg.PluginInterval)
	defer tick.Stop()
	clusterTick := time.NewTicker(p.cfg.ClusterInterval)
	defer clusterTick.Stop()
	pace := background.Pacer{Gap: reloadGap}
	next := p.reloaded(ctx)
	p.cluster(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-next:
			pace.Wait(ctx)
			start := time.Now()
			next = p.reloaded(ctx)
			pace.Done(start, time.Now())
		case <-tick.C:
			p.publish(ctx, pluginKind, p.plugins())
		case <-clusterTick.C:
			p.cluster(ctx)
		case ms := <-migrations:
			p.publish(ctx, migrationKind, migrationObjects(ms))
		}
	}
}

// reloaded writes what a reload may change, and returns the channel of
// the next reload.
func (p *publisher) reloaded(ctx context.Context) <-chan struct{} {
	outcomes, next := p.cfg.Schemas.Outcomes()
	reg := p.cfg.Schemas.Registry()
	p.publish(ctx, schemaFileKind, p.schemaFiles(reg, outcomes))
	p.publish(ctx, reloadKind, p.reloads(outcomes))
	p.publish(ctx, conversionKind, p.conversions(reg, outcomes))
	p.publish(ctx, pluginKind, p.plugins())
	return next
}
