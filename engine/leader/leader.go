package leader

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/specd-io/specd/engine/background"
)

// Config configures Run.
type Config struct {
	Client *clientv3.Client
	// Key is the election's key prefix in etcd; every replica uses the
	// same one.
	Key string
	// ID names this replica in the election (its value in etcd).
	ID string
	// TTL is the lease of the leader's key: a leader that dies is replaced
	// this long after its last keep-alive. DefaultLeaseTTL when 0.
	TTL    time.Duration
	Logger *slog.Logger
	// Name labels the specd_leader metric; "background" when empty.
	Name string
}

// DefaultLeaseTTL is the leader's lease when Config.TTL is 0.
const DefaultLeaseTTL = 5 * time.Second

// retryDelay is the pause after a failed session or campaign.
const retryDelay = time.Second

// Run campaigns in the election and runs lead while this replica is
// the leader, until ctx ends. lead's context ends when leadership is lost
// (the lease expired: etcd unreachable for a TTL); Run then
// campaigns again. When ctx ends it waits for lead to return and resigns,
// so another replica takes over at once.
func Run(ctx context.Context, cfg Config, lead func(ctx context.Context)) {
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultLeaseTTL
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Name == "" {
		cfg.Name = "background"
	}
	log := cfg.Logger.With("election", cfg.Key, "id", cfg.ID)
	for ctx.Err() == nil {
		if err := runTerm(ctx, cfg, log, lead); err != nil && ctx.Err() == nil {
			log.Warn("leader election failed; trying again", "err", err)
			background.Sleep(ctx, retryDelay)
		}
	}
}

// runTerm opens a session, wins the election and leads until the session
// or ctx ends.
func runTerm(ctx context.Context, cfg Config, log *slog.Logger, lead func(ctx context.Context)) error {
	session, err := concurrency.NewSession(cfg.Client, concurrency.WithTTL(int(cfg.TTL/time.Second)), concurrency.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	defer closeSession(cfg.Client, session)
	election := concurrency.NewElection(session, cfg.Key)
	// A campaign must stop when the session does: its key went with the
	// lease, and winning then would mean leading without one.
	campaignCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-session.Done():
		case <-campaignCtx.Done():
		}
		cancel()
	}()
	if err := election.Campaign(campaignCtx, cfg.ID); err != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() == nil {
			return errors.New("session lost while campaigning")
		}
		return fmt.Errorf("campaign: %w", err)
	}
	log.Info("elected leader: this replica runs the background work")
	gauge := leaderGauge.WithLabelValues(cfg.Name)
	gauge.Set(1)
	lead(campaignCtx)
	gauge.Set(0)
	if ctx.Err() == nil {
		log.Warn("lost the leadership (lease expired): background work stopped")
		return nil
	}
	resignCtx, stop := context.WithTimeout(context.Background(), 2*time.Second)
	defer stop()
	if err := election.Resign(resignCtx); err != nil {
		log.Warn("resign", "err", err)
	}
	log.Info("resigned the leadership")
	return nil
}

// closeSession revokes the session's lease, so its key goes at once. The
// session's own Close cannot once the context it was made with has ended.
func closeSession(client *clientv3.Client, session *concurrency.Session) {
	session.Orphan()
	if client.Ctx().Err() != nil {
		return // closed: the lease expires by itself
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, _ = client.Revoke(ctx, session.Lease())
}
