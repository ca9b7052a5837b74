package controller

import (
	"context"
	"log/slog"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/schemas"
)

// ServeConfig configures RunControllers.
type ServeConfig struct {
	Store      engine.Objects
	Reconciler hook.Reconciler
	// Registry returns the current registry; the controllers follow it.
	Registry func() *schemas.Registry
	// Workers per controller; DefaultWorkers when 0.
	Workers int
	Logger  *slog.Logger
}

// Job is RunControllers as a job of the elected replica.
func Job(cfg ServeConfig) background.Job {
	return background.JobFunc(func(ctx context.Context) { RunControllers(ctx, cfg) })
}

// RunControllers runs a Controller per resource bound to a reconcile
// plugin until ctx ends, then waits for them to stop. It starts them once
// such a resource has an object (AwaitWork); they follow schema reloads
// (Manager.Follow). specd runs it only in the elected replica
// (engine/leader).
func RunControllers(ctx context.Context, cfg ServeConfig) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	m := NewManager(ManagerConfig{Store: cfg.Store, Reconciler: cfg.Reconciler, Workers: cfg.Workers,
		Logger: cfg.Logger.With("component", "controllers")})
	AwaitWork(ctx, cfg.Store, cfg.Registry)
	m.Follow(ctx, cfg.Registry)
}
