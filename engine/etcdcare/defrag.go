package etcdcare

import (
	"context"
	"fmt"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// DefragPolicy says when a database is worth defragmenting: a
// defragmentation rewrites the whole file, and etcd answers no request
// meanwhile, so it waits until it gives back much.
type DefragPolicy struct {
	// MinBytes: a database file smaller than this is left as it is.
	MinBytes int64
	// MaxInUse: the file is defragmented when its live data is less than
	// this fraction of it.
	MaxInUse float64
	// QuietWrites: a defragmentation that is due waits for a check
	// interval in which etcd took fewer writes per second than this, since
	// the writes that come during one wait for it all (etcd cannot
	// defragment a bit at a time). 0: it does not wait.
	QuietWrites float64
	// MaxWait bounds that wait: a defragmentation due for this long runs
	// whatever the write rate (at once when 0).
	MaxWait time.Duration
}

// DefaultDefragPolicy defragments a file of 64 MiB or more that is less
// than half live data, when etcd takes fewer than 20 writes a second, or
// after an hour of waiting for that.
var DefaultDefragPolicy = DefragPolicy{MinBytes: 64 << 20, MaxInUse: 0.5, QuietWrites: 20, MaxWait: time.Hour}

func (p DefragPolicy) due(st *clientv3.StatusResponse) bool {
	return st.DbSize >= p.MinBytes && float64(st.DbSizeInUse) < p.MaxInUse*float64(st.DbSize)
}

// now says whether a due defragmentation runs now: the write rate since
// the last check (known false at the first check) is quiet enough, or it
// has waited long enough.
func (p DefragPolicy) now(rate float64, known bool, waited time.Duration) bool {
	return p.QuietWrites <= 0 || known && rate < p.QuietWrites || waited >= p.MaxWait
}

// writeRate records st's revision and returns the writes per second etcd
// took since the previous check; known is false at the first one.
func (c *Care) writeRate(st *clientv3.StatusResponse, at time.Time) (rate float64, known bool) {
	prevRev, prevAt := c.lastRevision, c.lastCheck
	c.lastRevision, c.lastCheck = st.Header.Revision, at
	if prevAt.IsZero() || !at.After(prevAt) {
		return 0, false
	}
	return float64(st.Header.Revision-prevRev) / at.Sub(prevAt).Seconds(), true
}

// defragmentWhenQuiet defragments st's database if the policy says now,
// and remembers since when it has been waiting otherwise.
func (c *Care) defragmentWhenQuiet(ctx context.Context, st *clientv3.StatusResponse, rate float64, known bool, at time.Time) error {
	if c.dueSince.IsZero() {
		c.dueSince = at
	}
	if !c.cfg.Defrag.now(rate, known, at.Sub(c.dueSince)) {
		c.log.Debug("etcd defragmentation due, waiting for fewer writes", "writes-per-second", rate, "waited", at.Sub(c.dueSince))
		return nil
	}
	c.dueSince = time.Time{}
	return c.defragment(ctx, st)
}

// defragTimeout bounds one defragmentation.
const defragTimeout = 10 * time.Minute

// disarmBelow is the fraction of the quota under which a database is
// given back its writes after a NOSPACE alarm: with less room than this,
// the next writes would raise the alarm again at once.
const disarmBelow = 0.9

// defragment rewrites the embedded etcd's database without its free
// pages, and logs and counts it.
func (c *Care) defragment(ctx context.Context, before *clientv3.StatusResponse) error {
	ctx, cancel := context.WithTimeout(ctx, defragTimeout)
	defer cancel()
	start := time.Now()
	err := c.defragmentMember(ctx)
	took := time.Since(start)
	if err != nil {
		defrags.WithLabelValues(resultFailed).Inc()
		return fmt.Errorf("defragment etcd: %w", err)
	}
	defrags.WithLabelValues(resultDone).Inc()
	defragDuration.Observe(took.Seconds())
	after, err := c.largestMember(ctx)
	if err != nil {
		return err
	}
	c.log.Info("etcd defragmented", "took", took, "before-bytes", before.DbSize,
		"in-use-bytes", before.DbSizeInUse, "after-bytes", after.DbSize)
	return nil
}

// defragmentMember defragments the embedded etcd's one member, at the
// endpoint of Config.Client.
func (c *Care) defragmentMember(ctx context.Context) error {
	eps := c.cfg.Client.Endpoints()
	if len(eps) != 1 {
		return fmt.Errorf("the embedded etcd's client has %d endpoints, want its one member's", len(eps))
	}
	_, err := c.cfg.Client.Defragment(ctx, eps[0])
	return err
}

// recover frees the space of a full embedded etcd: it compacts all its
// history (watchers behind are told to list again, as after any
// compaction), defragments, and disarms the alarms once the database is
// well under its quota. Live objects are not touched: if they alone fill
// the quota, the alarm stays until some are deleted.
func (c *Care) recover(ctx context.Context, st *clientv3.StatusResponse, alarms []*pb.AlarmMember) error {
	if err := Compact(ctx, c.cfg.Client, st.Header.Revision); err != nil {
		return err
	}
	st, err := c.largestMember(ctx)
	if err != nil {
		return err
	}
	// etcd may not count the pages the compaction freed until a later
	// write, so the in-use size cannot tell whether defragmenting helps:
	// defragment once for every revision the store is full at.
	if st.Header.Revision != c.fullDefragged {
		if err := c.defragment(ctx, st); err != nil {
			return err
		}
		c.fullDefragged = st.Header.Revision
		if st, err = c.largestMember(ctx); err != nil {
			return err
		}
	}
	if st.DbSizeQuota > 0 && float64(st.DbSize) >= disarmBelow*float64(st.DbSizeQuota) {
		c.log.Warn("etcd is still full after compaction and defragmentation: delete objects to free space",
			"db-bytes", st.DbSize, "quota-bytes", st.DbSizeQuota)
		return nil
	}
	return c.disarm(ctx, alarms)
}

func (c *Care) disarm(ctx context.Context, alarms []*pb.AlarmMember) error {
	for _, a := range alarms {
		if _, err := c.cfg.Client.AlarmDisarm(ctx, &clientv3.AlarmMember{MemberID: a.MemberID, Alarm: a.Alarm}); err != nil {
			return fmt.Errorf("disarm etcd's NOSPACE alarm: %w", err)
		}
		alarmDisarms.Inc()
	}
	c.log.Info("etcd's NOSPACE alarm disarmed after freeing space")
	return nil
}
