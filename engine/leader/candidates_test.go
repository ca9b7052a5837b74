package leader_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/leader"
)

// TestCandidates: every campaigning replica is read from etcd, the one
// that leads first; when it stops, the next leads.
func TestCandidates(t *testing.T) {
	cli, _ := etcdtest.StartServing(t)
	l := &leaders{t: t}
	a := startReplica(t, cli, "a", l)
	l.waitFor("a leads", 5*time.Second, func(cur string, _ []string) bool { return cur == "a" })
	startReplica(t, cli, "b", l)
	want := func(what string, ids []string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			cs, err := leader.Candidates(context.Background(), cli, "/test-election/controllers")
			var got []string
			for _, c := range cs {
				if c.Leader {
					got = append(got, c.ID+"*")
				} else {
					got = append(got, c.ID)
				}
			}
			if err == nil && slices.Equal(got, ids) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: candidates %v (%v), want %v", what, got, err, ids)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	want("two replicas", []string{"a*", "b"})
	a.stop()
	want("a stopped", []string{"b*"})
}
