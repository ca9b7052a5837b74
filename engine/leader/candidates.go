package leader

import (
	"context"
	"fmt"
	"sort"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Candidate is one replica in an election: the ID it campaigns with,
// and whether it leads.
type Candidate struct {
	ID     string
	Leader bool
}

// Candidates reads the replicas that campaign in the election under key,
// as etcd holds them: each campaigner's key under the prefix, whose
// value is its ID; the one created first leads (etcd's concurrency
// package elects so). Every replica reads the same.
func Candidates(ctx context.Context, client *clientv3.Client, key string) ([]Candidate, error) {
	resp, err := client.Get(ctx, key+"/", clientv3.WithPrefix())
	if err != nil {
		return nil, fmt.Errorf("leader: candidates of %s: %w", key, err)
	}
	kvs := resp.Kvs
	sort.Slice(kvs, func(i, j int) bool { return kvs[i].CreateRevision < kvs[j].CreateRevision })
	out := make([]Candidate, len(kvs))
	for i, kv := range kvs {
		out[i] = Candidate{ID: string(kv.Value), Leader: i == 0}
	}
	return out, nil
}
