package controller_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine/controller"
	"github.com/specd-io/specd/schemas"
)

// TestRunElectedControllers: once a fleet exists the replica is elected
// and reconciles it; when its context ends it stops and resigns.
func TestRunElectedControllers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := newEnv(t)
	rec := newScripted()
	done := make(chan struct{})
	go func() {
		controller.RunElectedControllers(ctx, controller.ElectedConfig{Client: e.etcd, Address: "127.0.0.1:0", Store: e.store,
			Reconciler: rec, Registry: func() *schemas.Registry { return e.reg }, Logger: slog.New(slog.DiscardHandler)})
		close(done)
	}()
	if _, err := e.client.Create(ctx, fleetsRef, "sea", fleet("a", 0)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for rec.count("sea/a") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the fleet was not reconciled within 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := leaderKeys(t, e.etcd); n != 1 {
		t.Errorf("%d leader keys while leading, want 1", n)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("RunElectedControllers did not return within 10s of its context's end")
	}
	if n := leaderKeys(t, e.etcd); n != 0 {
		t.Errorf("%d leader keys after the end, want 0 (resigned)", n)
	}
}

func leaderKeys(t *testing.T, etcd *clientv3.Client) int64 {
	t.Helper()
	resp, err := etcd.Get(context.Background(), controller.LeaderKey, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	return resp.Count
}
