package leader

import (
	"context"
	"os"
	"strconv"

	"github.com/specd-io/specd/engine/background"
)

// Key is the etcd key prefix of the election of the replica that runs
// the background work; outside the objects' prefix.
const Key = "/specd-leader/background"

// ReplicaID names this process among the replicas in an election: host,
// address, pid.
func ReplicaID(address string) string {
	host, _ := os.Hostname()
	return host + "/" + address + "/" + strconv.Itoa(os.Getpid())
}

// Jobs returns a Job that runs jobs only while this replica leads the
// election cfg names: every replica starts it, one runs the jobs. A
// change of leader stops them here and starts them there.
func Jobs(cfg Config, jobs ...background.Job) background.Job {
	group := background.New(jobs...)
	return background.JobFunc(func(ctx context.Context) { Run(ctx, cfg, group.Run) })
}
