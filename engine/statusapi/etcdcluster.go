package statusapi

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine/etcdcare"
	"github.com/specd-io/specd/engine/leader"
)

// EtcdCluster is the Cluster of the etcd specd stores in: the replicas
// campaigning in the election of leader.Key, and etcdcare's member list.
type EtcdCluster struct{ Client *clientv3.Client }

var _ Cluster = EtcdCluster{}

// Replicas are the candidates of the election, the leader first.
func (c EtcdCluster) Replicas(ctx context.Context) ([]Replica, error) {
	cs, err := leader.Candidates(ctx, c.Client, leader.Key)
	out := make([]Replica, len(cs))
	for i, cand := range cs {
		out[i] = Replica{ID: cand.ID, Leader: cand.Leader}
	}
	return out, err
}

// EtcdMembers are the members with each one's status.
func (c EtcdCluster) EtcdMembers(ctx context.Context) ([]EtcdMember, error) {
	return etcdcare.Members(ctx, c.Client)
}
