package main

import (
	"context"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/crd"
)

// crdFeed is the CRD API's work on every replica: it feeds the CRDs
// stored in etcd into the replica's schemas.
func crdFeed(store *engine.Store, crds *crd.API) background.Job {
	return background.JobFunc(func(ctx context.Context) { crds.RunFeed(ctx, crd.FeedConfig{Store: store}) })
}

// crdController names, establishes and finalizes CRDs, in the elected
// replica (backgroundJobs), once a CRD exists.
func crdController(store *engine.Store, crds *crd.API) background.Job {
	c := crds.NewController(store)
	return background.JobFunc(func(ctx context.Context) {
		if crds.AwaitAny(ctx); ctx.Err() == nil {
			c.Run(ctx)
		}
	})
}
