package rbac

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/schemas"
)

// startTimeout bounds each step of a start: loading the RBAC objects,
// aggregating the ClusterRoles, writing a policy.
const startTimeout = 30 * time.Second

// syncPoll is how often Start looks whether the indexes are loaded.
const syncPoll = 10 * time.Millisecond

// Start keeps the Authorizer's indexes up to date from store in the
// background (Run) until stop is called, and returns once they hold every
// RBAC object and the ClusterRoles with an aggregationRule are aggregated,
// so that specd answers no request it could not judge. The Aggregator it
// returns aggregates from then on, on the elected replica.
func (a *Authorizer) Start(ctx context.Context, store engine.Objects, registry func() *schemas.Registry, log *slog.Logger) (stop func(), agg *Aggregator, err error) {
	agg = &Aggregator{Authorizer: a, Objects: store, Registry: registry, Logger: log}
	stop = background.New(background.JobFunc(func(ctx context.Context) { a.Run(ctx, store) })).Start(ctx)
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	for !a.Synced() {
		if background.Sleep(ctx, syncPoll); ctx.Err() != nil {
			stop()
			return nil, nil, fmt.Errorf("load the RBAC objects: %w", ctx.Err())
		}
	}
	if err := agg.Settle(ctx); err != nil {
		stop()
		return nil, nil, fmt.Errorf("aggregate the ClusterRoles: %w", err)
	}
	return stop, agg, nil
}
