package main

import (
	"log/slog"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/leader"
)

// backgroundJobs runs jobs only in the replica elected among those on the
// same etcd (engine/leader): every replica campaigns, one works. This is
// the one place a background job of specd serve is started, so that no
// job runs on every replica by mistake.
func backgroundJobs(client *clientv3.Client, address string, log *slog.Logger, jobs ...background.Job) background.Job {
	cfg := leader.Config{Client: client, Key: leader.Key, ID: leader.ReplicaID(address), Logger: log}
	return leader.Jobs(cfg, jobs...)
}
