package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/namespace"
	"github.com/specd-io/specd/schemas"
)

// startNamespaces gives the namespace checks the store and keeps their
// cache up to date until stop is called, and creates the system
// namespaces. Every replica runs it before it serves, and before anything
// it writes into a namespace. The Namespaces of namespaces that hold
// objects already are the elected replica's to create (namespaceController).
func startNamespaces(ctx context.Context, life *namespace.Lifecycle, store *engine.Store, reg *schemas.Registry, log *slog.Logger) (stop func(), err error) {
	stop = life.Start(ctx, store)
	ctx, cancel := context.WithTimeout(ctx, policyTimeout)
	defer cancel()
	if _, err := namespace.EnsureSystem(ctx, store, reg, log); err != nil && !errors.Is(err, namespace.ErrNotServed) {
		stop()
		return nil, fmt.Errorf("create the namespaces: %w", err)
	}
	return stop, nil
}

// namespaceController gives a Namespace to every namespace that holds
// objects without one (namespace.Bootstrap), then runs kube's namespace
// controller, which empties and removes deleted namespaces, once a
// namespace is being deleted (life.AwaitDeleting), until ctx ends. specd
// runs it in the elected replica only (backgroundJobs). The two take
// turns in one job: a Bootstrap on another replica could see the objects
// of a namespace being removed and create it again once it is gone.
func namespaceController(store *engine.Store, life *namespace.Lifecycle, registry func() *schemas.Registry, log *slog.Logger) background.Job {
	c := namespace.NewController(namespace.ControllerConfig{Store: store, Registry: registry, Logger: log})
	return background.JobFunc(func(ctx context.Context) {
		adoptNamespaces(ctx, store, registry(), log)
		if life.AwaitDeleting(ctx); ctx.Err() == nil {
			c.Run(ctx)
		}
	})
}

// adoptNamespaces runs namespace.Bootstrap until it succeeds or ctx ends:
// until it has, creates in a namespace that holds objects from before
// specd served namespaces are refused.
func adoptNamespaces(ctx context.Context, store *engine.Store, reg *schemas.Registry, log *slog.Logger) {
	for delay := time.Second; ; delay = min(2*delay, time.Minute) {
		_, err := namespace.Bootstrap(ctx, store, reg, log)
		if err == nil || errors.Is(err, namespace.ErrNotServed) || ctx.Err() != nil {
			return
		}
		log.Warn("create the Namespaces of namespaces holding objects; trying again", "err", err, "in", delay)
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
	}
}
