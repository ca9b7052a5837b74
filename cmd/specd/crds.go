package main

import (
	"context"
	"log/slog"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/controller"
	"github.com/specd-io/specd/engine/crd"
)

// crdJobs are the CRD API's background work: every replica feeds the
// CRDs into its schemas; the replica elected among those on the same
// etcd names, establishes and finalizes them. A replica campaigns once a
// CRD exists.
func crdJobs(client *clientv3.Client, address string, store *engine.Store, crds *crd.API, log *slog.Logger) []background.Job {
	feed := background.JobFunc(func(ctx context.Context) { crds.RunFeed(ctx, crd.FeedConfig{Store: store}) })
	c := crds.NewController(store)
	election := controller.ElectionConfig{Client: client, Key: crd.LeaderKey, ID: controller.ReplicaID(address), Logger: log, Name: "customresourcedefinitions"}
	elected := background.JobFunc(func(ctx context.Context) {
		if crds.AwaitAny(ctx); ctx.Err() == nil {
			controller.RunElected(ctx, election, c.Run)
		}
	})
	return []background.Job{feed, elected}
}
