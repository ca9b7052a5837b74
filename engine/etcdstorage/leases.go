package etcdstorage

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

const (
	// leaseReuseMax bounds how long one lease takes new keys.
	leaseReuseMax = time.Minute
	// leaseReuseShare is the share of the TTL that one lease takes new
	// keys for, when that is less than leaseReuseMax.
	leaseReuseShare = 0.05
	// leaseMaxKeys is the most writes one lease is attached to: a revoke
	// deletes all its keys in one etcd transaction.
	leaseMaxKeys = 1000
)

// leases hands out the etcd leases of writes that expire after ttl. A lease
// per write would cost etcd a grant per write and as many leases to keep;
// instead one lease serves every write during its reuse window (5% of the
// TTL, at most a minute, whole seconds) and at most leaseMaxKeys writes,
// as kube-apiserver's storage does. It is granted for the TTL plus the
// window, so that a key attached at the window's end still lives the TTL.
// A TTL too short for a whole-second window gets a lease per write.
type leases struct {
	grant func(ctx context.Context, seconds int64) (clientv3.LeaseID, error)
	now   func() time.Time
	// ttl and window are in whole seconds, as etcd grants leases.
	ttl, window int64

	mu      sync.Mutex
	id      clientv3.LeaseID
	expires time.Time // of id, as granted; zero when there is none
	keys    int       // writes attached to id, counting this one
}

func newLeases(lease clientv3.Lease, ttl time.Duration) *leases {
	seconds := int64(math.Ceil(ttl.Seconds()))
	if seconds < 1 {
		seconds = 1
	}
	window := min(int64(leaseReuseShare*float64(seconds)), int64(leaseReuseMax/time.Second))
	grant := func(ctx context.Context, s int64) (clientv3.LeaseID, error) {
		resp, err := lease.Grant(ctx, s)
		if err != nil {
			return 0, err
		}
		return resp.ID, nil
	}
	return &leases{grant: grant, now: time.Now, ttl: seconds, window: window}
}

// get returns the lease for a write made now. The lock is held across a
// grant, so that writers that arrive together share the new lease instead
// of each granting one; a grant happens once per window or per
// leaseMaxKeys writes.
func (l *leases) get(ctx context.Context) (clientv3.LeaseID, error) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.reusable(now) {
		l.keys++
		return l.id, nil
	}
	id, err := l.grant(ctx, l.ttl+l.window)
	if err != nil {
		return 0, fmt.Errorf("etcdstorage: grant a lease of %ds: %w", l.ttl+l.window, err)
	}
	l.id, l.expires, l.keys = id, now.Add(time.Duration(l.ttl+l.window)*time.Second), 1
	return id, nil
}

// reusable reports whether the current lease outlives a key written now by
// the TTL, by no more than the window (a clock that went back would
// otherwise keep a key too long), and has room for one more key.
func (l *leases) reusable(now time.Time) bool {
	if l.expires.IsZero() || l.keys >= leaseMaxKeys {
		return false
	}
	earliest := now.Add(time.Duration(l.ttl) * time.Second)
	latest := earliest.Add(time.Duration(l.window) * time.Second)
	return l.expires.After(earliest) && !l.expires.After(latest)
}

// forget drops id when it is the current lease: etcd no longer has it (it
// was revoked, or etcd lost it), so the next write gets a new one.
func (l *leases) forget(id clientv3.LeaseID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.id == id {
		l.expires = time.Time{}
	}
}
