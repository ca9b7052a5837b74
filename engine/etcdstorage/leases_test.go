package etcdstorage

import (
	"context"
	"errors"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// fakeGrants counts grants and hands out increasing lease IDs.
type fakeGrants struct {
	seconds []int64
	fail    error
}

func (f *fakeGrants) grant(_ context.Context, s int64) (clientv3.LeaseID, error) {
	if f.fail != nil {
		return 0, f.fail
	}
	f.seconds = append(f.seconds, s)
	return clientv3.LeaseID(len(f.seconds)), nil
}

func testLeases(ttl time.Duration, clock *time.Time) (*leases, *fakeGrants) {
	f := &fakeGrants{}
	l := newLeases(nil, ttl)
	l.grant = f.grant
	l.now = func() time.Time { return *clock }
	return l, f
}

func mustLease(t *testing.T, l *leases) clientv3.LeaseID {
	t.Helper()
	id, err := l.get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestLeasesWindow(t *testing.T) {
	tests := map[string]struct {
		ttl    time.Duration
		window int64
	}{
		"an hour: a minute":         {time.Hour, 60},
		"ten minutes: 5%":           {10 * time.Minute, 30},
		"two seconds: none":         {2 * time.Second, 0},
		"below a second: a second":  {10 * time.Millisecond, 0},
		"a second and a bit: two s": {1100 * time.Millisecond, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			l := newLeases(nil, tc.ttl)
			if l.window != tc.window {
				t.Errorf("window = %ds, want %ds", l.window, tc.window)
			}
			if l.ttl < 1 || time.Duration(l.ttl)*time.Second < tc.ttl {
				t.Errorf("ttl = %ds, less than %v", l.ttl, tc.ttl)
			}
		})
	}
}

func TestLeasesReusedInWindow(t *testing.T) {
	clock := time.Unix(1000, 0)
	l, f := testLeases(time.Hour, &clock)
	first := mustLease(t, l)
	if len(f.seconds) != 1 || f.seconds[0] != 3660 {
		t.Fatalf("grants = %v, want one of 3660s (the TTL and the window)", f.seconds)
	}
	clock = clock.Add(59 * time.Second)
	if id := mustLease(t, l); id != first {
		t.Errorf("within the window: lease %d, want %d again", id, first)
	}
	clock = clock.Add(time.Second)
	if id := mustLease(t, l); id == first {
		t.Errorf("after the window: lease %d reused; a key would live less than the TTL", id)
	}
}

func TestLeasesMaxKeys(t *testing.T) {
	clock := time.Unix(1000, 0)
	l, f := testLeases(time.Hour, &clock)
	for range leaseMaxKeys {
		mustLease(t, l)
	}
	if len(f.seconds) != 1 {
		t.Fatalf("%d writes: %d grants, want 1", leaseMaxKeys, len(f.seconds))
	}
	mustLease(t, l)
	if len(f.seconds) != 2 {
		t.Errorf("write %d: %d grants, want 2", leaseMaxKeys+1, len(f.seconds))
	}
}

func TestLeasesClockBack(t *testing.T) {
	clock := time.Unix(1000, 0)
	l, f := testLeases(time.Hour, &clock)
	mustLease(t, l)
	clock = clock.Add(-time.Hour)
	mustLease(t, l)
	if len(f.seconds) != 2 {
		t.Errorf("after the clock went back an hour: %d grants, want 2 (the old lease would keep the key two hours)", len(f.seconds))
	}
}

func TestLeasesForget(t *testing.T) {
	clock := time.Unix(1000, 0)
	l, _ := testLeases(time.Hour, &clock)
	first := mustLease(t, l)
	l.forget(first + 1) // not the current one: kept
	if id := mustLease(t, l); id != first {
		t.Fatalf("forgetting another lease dropped the current one")
	}
	l.forget(first)
	if id := mustLease(t, l); id == first {
		t.Errorf("a forgotten lease was handed out again")
	}
}

func TestLeasesGrantError(t *testing.T) {
	clock := time.Unix(1000, 0)
	l, f := testLeases(time.Hour, &clock)
	f.fail = errors.New("no leader")
	if _, err := l.get(context.Background()); err == nil || !errors.Is(err, f.fail) {
		t.Fatalf("get = %v, want the grant's error", err)
	}
	f.fail = nil
	if id := mustLease(t, l); id != 1 {
		t.Errorf("after a failed grant: lease %d, want a new grant", id)
	}
}
