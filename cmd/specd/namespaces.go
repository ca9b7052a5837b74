package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/namespace"
	"github.com/specd-io/specd/schemas"
)

// startNamespaces gives the namespace checks the store and keeps their
// cache up to date until stop is called, and creates the system
// namespaces and those that hold objects already. Every replica runs it
// before it serves, and before anything it writes into a namespace.
func startNamespaces(ctx context.Context, life *namespace.Lifecycle, store *engine.Store, reg *schemas.Registry, log *slog.Logger) (stop func(), err error) {
	stop = life.Start(ctx, store)
	ctx, cancel := context.WithTimeout(ctx, policyTimeout)
	defer cancel()
	if _, err := namespace.Bootstrap(ctx, store, reg, log); err != nil && !errors.Is(err, namespace.ErrNotServed) {
		stop()
		return nil, fmt.Errorf("create the namespaces: %w", err)
	}
	return stop, nil
}

// namespaceController runs kube's namespace controller, which empties
// and removes deleted namespaces, once a namespace is being deleted
// (life.AwaitDeleting), until ctx ends. specd runs it in the elected
// replica only (backgroundJobs).
func namespaceController(store *engine.Store, life *namespace.Lifecycle, registry func() *schemas.Registry, log *slog.Logger) background.Job {
	c := namespace.NewController(namespace.ControllerConfig{Store: store, Registry: registry, Logger: log})
	return background.JobFunc(func(ctx context.Context) {
		if life.AwaitDeleting(ctx); ctx.Err() == nil {
			c.Run(ctx)
		}
	})
}
