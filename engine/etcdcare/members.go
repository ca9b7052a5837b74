package etcdcare

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Member is one etcd member as the cluster and the member itself report
// it.
type Member struct {
	Name       string
	ID         uint64
	ClientURLs []string
	Learner    bool
	// From the member's status; Err says why there is none.
	Version             string
	DBSize, DBSizeInUse int64
	Leader              bool
	RaftTerm, RaftIndex uint64
	Alarms              []string
	Err                 string
}

// Members lists the cluster's members with each one's status, asked at
// its first client URL.
func Members(ctx context.Context, client *clientv3.Client) ([]Member, error) {
	list, err := client.MemberList(ctx)
	if err != nil {
		return nil, fmt.Errorf("etcdcare: member list: %w", err)
	}
	alarms, _ := client.AlarmList(ctx)
	out := make([]Member, 0, len(list.Members))
	for _, m := range list.Members {
		mem := Member{Name: m.Name, ID: m.ID, ClientURLs: m.ClientURLs, Learner: m.IsLearner}
		if alarms != nil {
			for _, a := range alarms.Alarms {
				if a.MemberID == m.ID {
					mem.Alarms = append(mem.Alarms, a.Alarm.String())
				}
			}
		}
		mem.status(ctx, client)
		out = append(out, mem)
	}
	return out, nil
}

// status fills in what the member says of itself.
func (m *Member) status(ctx context.Context, client *clientv3.Client) {
	if len(m.ClientURLs) == 0 {
		m.Err = "no client URL"
		return
	}
	st, err := client.Status(ctx, m.ClientURLs[0])
	if err != nil {
		m.Err = err.Error()
		return
	}
	m.Version, m.DBSize, m.DBSizeInUse = st.Version, st.DbSize, st.DbSizeInUse
	m.Leader, m.RaftTerm, m.RaftIndex = st.Leader == m.ID, st.RaftTerm, st.RaftIndex
}
