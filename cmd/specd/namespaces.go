package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/controller"
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
// and removes deleted namespaces, in the replica elected among those on
// the same etcd, until ctx ends. A replica campaigns once a namespace is
// being deleted (life.AwaitDeleting).
func namespaceController(client *clientv3.Client, address string, store *engine.Store, life *namespace.Lifecycle, registry func() *schemas.Registry, log *slog.Logger) background.Job {
	c := namespace.NewController(namespace.ControllerConfig{Store: store, Registry: registry, Logger: log})
	election := controller.ElectionConfig{Client: client, Key: namespace.LeaderKey, ID: controller.ReplicaID(address), Logger: log, Name: "namespaces"}
	return background.JobFunc(func(ctx context.Context) {
		if life.AwaitDeleting(ctx); ctx.Err() == nil {
			controller.RunElected(ctx, election, c.Run)
		}
	})
}
