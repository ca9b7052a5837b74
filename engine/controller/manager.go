package controller

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/schemas"
)

// Bound lists the resources of reg whose storage version binds a reconcile
// plugin, as their storage versions.
func Bound(reg *schemas.Registry) []*schemas.ResourceVersion {
	var out []*schemas.ResourceVersion
	for _, g := range reg.Groups() {
		for _, r := range g.Resources {
			if sv := r.Version(r.StorageVersion); sv != nil && sv.Hooks != nil && sv.Hooks.Reconcile != "" {
				out = append(out, sv)
			}
		}
	}
	return out
}

// ManagerConfig configures a Manager.
type ManagerConfig struct {
	Store      engine.Objects
	Reconciler hook.Reconciler
	// Workers per controller; DefaultWorkers when 0.
	Workers int
	Logger  *slog.Logger
}

// Manager runs a Controller for every bound resource of a registry.
type Manager struct {
	cfg ManagerConfig
}

// NewManager returns a Manager.
func NewManager(cfg ManagerConfig) *Manager {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Manager{cfg: cfg}
}

// Run starts a Controller for every resource of reg that Bound lists and
// returns when ctx has ended and all of them have stopped. Each run starts
// new controllers, with empty queues, which list every object first: a
// new leader starts from what is stored.
func (m *Manager) Run(ctx context.Context, reg *schemas.Registry) error {
	var ctrls []*Controller
	for _, rv := range Bound(reg) {
		c, err := New(Config{Resource: rv, Store: m.cfg.Store, Reconciler: m.cfg.Reconciler,
			Workers: m.cfg.Workers, Logger: m.cfg.Logger})
		if err != nil {
			return err
		}
		ctrls = append(ctrls, c)
	}
	var wg sync.WaitGroup
	for _, c := range ctrls {
		wg.Go(func() { c.Run(ctx) })
	}
	if len(ctrls) > 0 {
		owners := ownersOf(ctrls)
		for _, rv := range storageVersions(reg) {
			wg.Go(func() { watchEvents(ctx, m.cfg.Store, rv, m.cfg.Logger, owners.enqueue) })
		}
	}
	wg.Wait()
	return nil
}

func storageVersions(reg *schemas.Registry) []*schemas.ResourceVersion {
	var out []*schemas.ResourceVersion
	for _, g := range reg.Groups() {
		for _, r := range g.Resources {
			if sv := r.Version(r.StorageVersion); sv != nil {
				out = append(out, sv)
			}
		}
	}
	return out
}

// followInterval is how often Follow looks for a new registry.
const followInterval = time.Second

// Follow runs the controllers of the current registry until ctx ends, and
// starts them again for a new registry when a reload swaps one in.
func (m *Manager) Follow(ctx context.Context, registry func() *schemas.Registry) {
	for ctx.Err() == nil {
		reg := registry()
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- m.Run(runCtx, reg) }()
		waitForChange(runCtx, registry, reg)
		cancel()
		if err := <-done; err != nil {
			m.cfg.Logger.Error("controllers", "err", err)
			background.Sleep(ctx, followInterval)
		}
	}
}

// waitForChange returns when ctx ends or registry no longer returns reg.
func waitForChange(ctx context.Context, registry func() *schemas.Registry, reg *schemas.Registry) {
	t := time.NewTicker(followInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if registry() != reg {
				return
			}
		}
	}
}

// AwaitWork returns once a resource of the current registry that binds a
// reconcile plugin has an object, or when ctx ends. It reads the watch
// cache (resourceVersion 0), so waiting writes nothing to etcd: a specd
// whose reconcilers have nothing to do does not even hold an election.
func AwaitWork(ctx context.Context, lister engine.Reader, registry func() *schemas.Registry) {
	for {
		for _, rv := range Bound(registry()) {
			list, err := lister.List(ctx, engine.Ref{Version: rv, Namespace: ""}, engine.ListRequest{ResourceVersion: "0", Limit: 1})
			if err == nil && gjson.GetBytes(list, "items.#").Int() > 0 {
				return
			}
		}
		background.Sleep(ctx, followInterval)
		if ctx.Err() != nil {
			return
		}
	}
}
