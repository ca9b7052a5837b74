package main

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/server"
)

// etcdCheckTimeout bounds the read of one etcd readiness check; kube-apiserver
// gives its etcd check 2 s too.
const etcdCheckTimeout = 2 * time.Second

// etcdCheck is the /readyz check a load balancer relies on: a
// linearizable read, which only a cluster with a leader and a quorum
// answers. A replica that cannot reach such a cluster is taken out of
// rotation rather than answering errors.
func etcdCheck(client *clientv3.Client) server.Check {
	return server.Check{Name: "etcd", Check: func() error {
		ctx, cancel := context.WithTimeout(context.Background(), etcdCheckTimeout)
		defer cancel()
		if _, err := client.Get(ctx, "health", clientv3.WithKeysOnly(), clientv3.WithLimit(1)); err != nil {
			return fmt.Errorf("etcd does not answer: %w", err)
		}
		return nil
	}}
}
