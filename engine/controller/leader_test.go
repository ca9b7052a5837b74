package controller_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine/controller"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
)

// leaders records who leads; it fails the test if two lead at once.
type leaders struct {
	t       *testing.T
	mu      sync.Mutex
	current string
	terms   []string
}

func (l *leaders) lead(id string) func(ctx context.Context) {
	return func(ctx context.Context) {
		l.mu.Lock()
		if l.current != "" {
			l.t.Errorf("%s leads while %s does", id, l.current)
		}
		l.current = id
		l.terms = append(l.terms, id)
		l.mu.Unlock()
		<-ctx.Done()
		l.mu.Lock()
		l.current = ""
		l.mu.Unlock()
	}
}

func (l *leaders) waitFor(what string, timeout time.Duration, cond func(current string, terms []string) bool) {
	l.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		l.mu.Lock()
		ok := cond(l.current, l.terms)
		l.mu.Unlock()
		if ok {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.t.Fatalf("%s: not within %s (current %q, terms %v)", what, timeout, l.current, l.terms)
}

type replica struct {
	id     string
	cancel context.CancelFunc
	done   chan struct{}
}

func startReplica(t *testing.T, cli *clientv3.Client, id string, l *leaders) *replica {
	ctx, cancel := context.WithCancel(context.Background())
	r := &replica{id: id, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		controller.RunElected(ctx, controller.ElectionConfig{Client: cli, Key: "/test-election/controllers", ID: id,
			TTL: time.Second, Logger: slog.New(slog.DiscardHandler), Name: "test"}, l.lead(id))
	}()
	t.Cleanup(r.stop)
	return r
}

func (r *replica) stop() {
	r.cancel()
	<-r.done
}

func TestRunElected(t *testing.T) {
	first, endpoints := etcdtest.StartServing(t)
	client := func() *clientv3.Client {
		cli, err := etcdstorage.NewClient(context.Background(), endpoints)
		if err != nil {
			t.Fatal(err)
		}
		return cli
	}
	l := &leaders{t: t}
	a := startReplica(t, first, "a", l)
	l.waitFor("a leads", 5*time.Second, func(cur string, _ []string) bool { return cur == "a" })
	bcli := client()
	t.Cleanup(func() { bcli.Close() })
	startReplica(t, bcli, "b", l)
	time.Sleep(300 * time.Millisecond)
	l.waitFor("b waits", time.Second, func(cur string, _ []string) bool { return cur == "a" })

	// a stops cleanly: it resigns, b takes over at once.
	start := time.Now()
	a.stop()
	l.waitFor("b leads", 2*time.Second, func(cur string, _ []string) bool { return cur == "b" })
	t.Logf("failover after a resigned: %s", time.Since(start).Round(time.Millisecond))

	// c joins, then b dies without resigning (its client is gone): c
	// takes over once b's lease expires.
	ccli := client()
	t.Cleanup(func() { ccli.Close() })
	startReplica(t, ccli, "c", l)
	time.Sleep(200 * time.Millisecond)
	start = time.Now()
	bcli.Close()
	l.waitFor("c leads", 5*time.Second, func(cur string, _ []string) bool { return cur == "c" })
	t.Logf("failover after b died: %s", time.Since(start).Round(time.Millisecond))
	l.mu.Lock()
	defer l.mu.Unlock()
	if want := []string{"a", "b", "c"}; len(l.terms) != 3 || l.terms[0] != want[0] || l.terms[1] != want[1] || l.terms[2] != want[2] {
		t.Errorf("terms %v, want %v", l.terms, want)
	}
}
