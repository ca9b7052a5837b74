package crd

import (
	"testing"
	"time"
)

// TestDeletionCheck: while objects remain, the Controller answers kube's
// InstanceDeletionCheck condition once a minute, as kube's finalizer does
// at the end of each minute of polling, and starts again after it.
func TestDeletionCheck(t *testing.T) {
	start := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	now := start
	c := New(Config{}).NewController(nil)
	c.now = func() time.Time { return now }
	steps := []struct {
		after time.Duration
		check bool
	}{{0, false}, {30 * time.Second, false}, {DeletionCheckAfter, true}, {DeletionCheckAfter + time.Second, false},
		{2*DeletionCheckAfter - time.Second, false}, {2 * DeletionCheckAfter, true}}
	for _, s := range steps {
		now = start.Add(s.after)
		got := c.deletionCheck("widgets.example.com")
		if (got != nil) != s.check {
			t.Fatalf("after %v: check %v, want %v", s.after, got, s.check)
		}
		if got == nil {
			continue
		}
		want := Condition{Type: "Terminating", Status: "True", Reason: "InstanceDeletionCheck",
			Message: "could not confirm zero CustomResources remaining: context deadline exceeded"}
		if *got != want {
			t.Fatalf("after %v: %+v, want %+v", s.after, *got, want)
		}
	}
	c.doneWaiting("widgets.example.com")
	now = start.Add(10 * DeletionCheckAfter)
	if got := c.deletionCheck("widgets.example.com"); got != nil {
		t.Fatalf("a new wait answers %+v at once", got)
	}
}
