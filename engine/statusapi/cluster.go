package statusapi

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/specd-io/specd/engine/etcdcare"
)

// Replica is one specd replica in the election of the background work
// (engine/leader): its ID (host/address/pid) and whether it leads.
type Replica struct {
	ID     string
	Leader bool
}

// EtcdMember is one etcd member with its status, as etcdcare reads it.
type EtcdMember = etcdcare.Member

// Cluster reads what every replica shares: the election and etcd.
type Cluster interface {
	Replicas(ctx context.Context) ([]Replica, error)
	EtcdMembers(ctx context.Context) ([]EtcdMember, error)
}

type replicaStatus struct {
	ID      string `json:"id"`
	Host    string `json:"host"`
	Address string `json:"address"`
	Role    string `json:"role"`
}

type etcdMemberStatus struct {
	Name        string   `json:"name"`
	ID          string   `json:"id"`
	ClientURLs  []string `json:"clientURLs,omitempty"`
	Learner     bool     `json:"learner,omitempty"`
	Version     string   `json:"version,omitempty"`
	DBSize      int64    `json:"dbSize,omitempty"`
	DBSizeInUse int64    `json:"dbSizeInUse,omitempty"`
	Leader      bool     `json:"leader"`
	RaftTerm    uint64   `json:"raftTerm,omitempty"`
	RaftIndex   uint64   `json:"raftIndex,omitempty"`
	Alarms      []string `json:"alarms,omitempty"`
	Health      string   `json:"health"`
	Error       string   `json:"error,omitempty"`
}

// clusterTimeout bounds one reading of the election and of etcd.
const clusterTimeout = 5 * time.Second

// cluster writes the Replica and EtcdMember objects from one reading;
// a kind whose reading failed keeps its objects and logs why.
func (p *publisher) cluster(ctx context.Context) {
	if p.cfg.Cluster == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, clusterTimeout)
	defer cancel()
	if rs, err := p.cfg.Cluster.Replicas(ctx); err != nil {
		p.cfg.Logger.Debug("status.specd.io: reading the replicas", "err", err)
	} else {
		p.publish(ctx, replicaKind, replicas(rs))
	}
	if ms, err := p.cfg.Cluster.EtcdMembers(ctx); err != nil {
		p.cfg.Logger.Debug("status.specd.io: reading the etcd members", "err", err)
	} else {
		p.publish(ctx, etcdMemberKind, etcdMembers(ms))
	}
}

// replicas are the Replica objects, named after their ID.
func replicas(rs []Replica) map[string]any {
	out := make(map[string]any, len(rs))
	for _, r := range rs {
		st := replicaStatus{ID: r.ID, Role: "Candidate"}
		if r.Leader {
			st.Role = "Leader"
		}
		// ID is host/address/pid (leader.ReplicaID).
		if host, rest, ok := strings.Cut(r.ID, "/"); ok {
			st.Host = host
			st.Address, _, _ = strings.Cut(rest, "/")
		}
		out[objectName(r.ID)] = st
	}
	return out
}

// etcdMembers are the EtcdMember objects, named after the member (its ID
// in hex when it has no name yet).
func etcdMembers(ms []EtcdMember) map[string]any {
	out := make(map[string]any, len(ms))
	for _, m := range ms {
		id := fmt.Sprintf("%x", m.ID)
		st := etcdMemberStatus{Name: m.Name, ID: id, ClientURLs: m.ClientURLs, Learner: m.Learner, Version: m.Version,
			DBSize: m.DBSize, DBSizeInUse: m.DBSizeInUse, Leader: m.Leader, RaftTerm: m.RaftTerm, RaftIndex: m.RaftIndex,
			Alarms: m.Alarms, Health: "Healthy", Error: m.Err}
		if m.Err != "" || len(m.Alarms) > 0 {
			st.Health = "Unhealthy"
		}
		name := m.Name
		if name == "" {
			name = id
		}
		out[objectName(name)] = st
	}
	return out
}
