package leader

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine/background"
)

// signalPrefix is where Signals write; outside the election's prefix,
// whose every key is a candidate.
const signalPrefix = "/specd-leader-signal/"

// signalDelay gathers a burst of Raises into one write.
const signalDelay = 100 * time.Millisecond

// Signal carries a nudge from any replica to the job of the elected one
// (the deletes that the garbage collector acts on): in the replica that
// runs the job (Job), Raise calls fire at once; in any other it writes a
// key in etcd, at most once per signalDelay and after the Raises that
// asked for it, which the elected replica's Job watches and answers by
// calling fire.
type Signal struct {
	client  *clientv3.Client
	key     string
	fire    func()
	log     *slog.Logger
	leading atomic.Bool
	pending atomic.Bool
}

// NewSignal returns the Signal name that calls fire in the elected
// replica.
func NewSignal(client *clientv3.Client, name string, fire func(), log *slog.Logger) *Signal {
	return &Signal{client: client, key: signalPrefix + name, fire: fire, log: log}
}

// Raise nudges the elected replica's job.
func (s *Signal) Raise() {
	if s.leading.Load() {
		s.fire()
		return
	}
	if s.pending.Swap(true) {
		return // a write is due already, after this Raise
	}
	time.AfterFunc(signalDelay, s.write)
}

func (s *Signal) write() {
	s.pending.Store(false)
	if s.client.Ctx().Err() != nil {
		return // closed: specd stops
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.client.Put(ctx, s.key, ""); err != nil {
		s.log.Warn("cannot signal the elected replica; its next periodic run does the work", "signal", s.key, "err", err)
	}
}

// Run is the Job that receives the signal: run it with the job it
// nudges, in the elected replica only (Jobs).
func (s *Signal) Run(ctx context.Context) {
	s.leading.Store(true)
	defer s.leading.Store(false)
	for ctx.Err() == nil {
		for resp := range s.client.Watch(clientv3.WithRequireLeader(ctx), s.key) {
			if len(resp.Events) > 0 {
				s.fire()
			}
		}
		// A signal written while no watch was open would be lost: the
		// job runs once more instead.
		background.Sleep(ctx, time.Second)
		s.fire()
	}
}
