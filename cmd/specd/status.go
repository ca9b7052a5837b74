package main

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine/etcdcare"
	"github.com/specd-io/specd/engine/leader"
	"github.com/specd-io/specd/engine/statusapi"
)

// statusCluster is statusapi.Cluster on specd's etcd: the election of
// leader.Key and etcdcare's member list.
type statusCluster struct{ client *clientv3.Client }

var _ statusapi.Cluster = statusCluster{}

func (c statusCluster) Replicas(ctx context.Context) ([]statusapi.Replica, error) {
	cs, err := leader.Candidates(ctx, c.client, leader.Key)
	out := make([]statusapi.Replica, len(cs))
	for i, cand := range cs {
		out[i] = statusapi.Replica{ID: cand.ID, Leader: cand.Leader}
	}
	return out, err
}

func (c statusCluster) EtcdMembers(ctx context.Context) ([]statusapi.EtcdMember, error) {
	ms, err := etcdcare.Members(ctx, c.client)
	out := make([]statusapi.EtcdMember, len(ms))
	for i, m := range ms {
		out[i] = statusapi.EtcdMember(m)
	}
	return out, err
}
