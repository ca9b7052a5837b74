package etcdcare

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Config says what Care looks after.
type Config struct {
	Client *clientv3.Client
	// Embedded is set when Client talks to specd's own embedded etcd
	// (through its socket): only then does Care defragment it and disarm
	// its NOSPACE alarm. An external cluster is its operators' to
	// defragment.
	Embedded bool
	// CompactionInterval is --etcd-compaction-interval; 0: specd does not
	// compact.
	CompactionInterval time.Duration
	// CheckInterval is how often Care reads the database's size and the
	// alarms; DefaultCheckInterval when 0.
	CheckInterval time.Duration
	// Defrag says when the embedded etcd's database is worth
	// defragmenting; DefaultDefragPolicy when zero.
	Defrag DefragPolicy
	Logger *slog.Logger
}

// DefaultCheckInterval is Config.CheckInterval when 0.
const DefaultCheckInterval = 30 * time.Second

// statusTimeout bounds one round of status and alarm reads.
const statusTimeout = 10 * time.Second

// Care compacts, defragments and watches the size and alarms of etcd.
// It is an engine/background Job.
type Care struct {
	cfg       Config
	compactor *Compactor
	log       *slog.Logger
	// alarmed remembers the last NOSPACE state, so that a change is
	// logged once.
	alarmed bool
	// fullDefragged is the store revision of the last defragmentation
	// under a NOSPACE alarm: another one at the same revision would free
	// nothing more.
	fullDefragged int64
	// lastRevision and lastCheck are etcd's revision at the last check
	// and when it was: the write rate a defragmentation waits on.
	lastRevision int64
	lastCheck    time.Time
	// dueSince is when the pending defragmentation became due; zero
	// when none is.
	dueSince time.Time
}

// New returns the Care of cfg.Client's etcd.
func New(cfg Config) *Care {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.CheckInterval <= 0 {
		cfg.CheckInterval = DefaultCheckInterval
	}
	if cfg.Defrag == (DefragPolicy{}) {
		cfg.Defrag = DefaultDefragPolicy
	}
	log := cfg.Logger.With("component", "etcdcare")
	return &Care{cfg: cfg, compactor: NewCompactor(cfg.Client, log), log: log}
}

// Run compacts and checks etcd until ctx ends. Compactions and checks
// take turns, never at once: etcd 3.7.3 was seen to crash (a nil bolt
// transaction in the compaction's commit) when an in-process compaction
// ran during a defragmentation (docs/operations.md).
func (c *Care) Run(ctx context.Context) {
	checks := time.NewTicker(c.cfg.CheckInterval)
	defer checks.Stop()
	var compactions <-chan time.Time
	if c.cfg.CompactionInterval > 0 {
		ticker := time.NewTicker(c.cfg.CompactionInterval)
		defer ticker.Stop()
		compactions = ticker.C
	}
	c.logFailure(ctx, "etcd check failed", c.Check(ctx))
	for {
		select {
		case <-ctx.Done():
			return
		case <-checks.C:
			c.logFailure(ctx, "etcd check failed", c.Check(ctx))
		case <-compactions:
			_, err := c.compactor.Tick(ctx)
			c.logFailure(ctx, "etcd compaction failed; trying again next interval", err)
		}
	}
}

func (c *Care) logFailure(ctx context.Context, msg string, err error) {
	if err != nil && ctx.Err() == nil {
		c.log.Warn(msg, "err", err)
	}
}

// Check reads the database's size and alarms into the metrics and, on
// the embedded etcd, frees space: a NOSPACE alarm is answered by
// compacting all history, defragmenting and disarming; a database mostly
// free is defragmented when etcd takes few writes (DefragPolicy).
func (c *Care) Check(ctx context.Context) error {
	st, err := c.largestMember(ctx)
	if err != nil {
		return err
	}
	rate, known := c.writeRate(st, time.Now())
	alarms, err := c.noSpace(ctx)
	if err != nil {
		return err
	}
	switch {
	case !c.cfg.Embedded:
		return nil
	case len(alarms) > 0:
		return c.recover(ctx, st, alarms) // now, whatever the write rate
	case c.cfg.Defrag.due(st):
		return c.defragmentWhenQuiet(ctx, st, rate, known, c.lastCheck)
	}
	c.dueSince = time.Time{}
	return nil
}

// largestMember is the status of the member whose database is largest,
// recorded in the size metrics.
func (c *Care) largestMember(ctx context.Context) (*clientv3.StatusResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	var largest *clientv3.StatusResponse
	for _, ep := range c.cfg.Client.Endpoints() {
		st, err := c.cfg.Client.Status(ctx, ep)
		if err != nil {
			return nil, fmt.Errorf("status of etcd %s: %w", ep, err)
		}
		if largest == nil || st.DbSize > largest.DbSize {
			largest = st
		}
	}
	recordSizes(largest)
	return largest, nil
}

func recordSizes(st *clientv3.StatusResponse) {
	id := fmt.Sprintf("%x", st.Header.ClusterId)
	dbSize.WithLabelValues(id).Set(float64(st.DbSize))
	dbSizeInUse.WithLabelValues(id).Set(float64(st.DbSizeInUse))
	dbQuota.WithLabelValues(id).Set(float64(st.DbSizeQuota))
}

// noSpace are etcd's raised NOSPACE alarms, one per full member; it logs
// when the alarm is raised or gone.
func (c *Care) noSpace(ctx context.Context) ([]*pb.AlarmMember, error) {
	ctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	resp, err := c.cfg.Client.AlarmList(ctx)
	if err != nil {
		return nil, fmt.Errorf("etcd alarms: %w", err)
	}
	var alarms []*pb.AlarmMember
	for _, a := range resp.Alarms {
		if a.Alarm == pb.AlarmType_NOSPACE {
			alarms = append(alarms, a)
		}
	}
	full := len(alarms) > 0
	if full != c.alarmed {
		c.alarmed = full
		c.logAlarm(full)
	}
	if full {
		noSpaceAlarm.Set(1)
	} else {
		noSpaceAlarm.Set(0)
	}
	return alarms, nil
}

func (c *Care) logAlarm(full bool) {
	switch {
	case !full:
		c.log.Info("etcd's NOSPACE alarm is off: writes are accepted")
	case c.cfg.Embedded:
		c.log.Error("etcd's NOSPACE alarm is raised: writes are refused until specd frees space (compaction, defragmentation) or objects are deleted")
	default:
		c.log.Error("etcd's NOSPACE alarm is raised: writes are refused until etcd's operators compact, defragment and disarm it (etcdctl alarm disarm)")
	}
}
