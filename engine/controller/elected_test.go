package controller_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/specd-io/specd/engine/controller"
	"github.com/specd-io/specd/schemas"
)

// TestRunControllers: once a fleet exists it is reconciled; when the
// context ends RunControllers returns.
func TestRunControllers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := newEnv(t)
	rec := newScripted()
	done := make(chan struct{})
	go func() {
		controller.RunControllers(ctx, controller.ServeConfig{Store: e.store, Reconciler: rec,
			Registry: func() *schemas.Registry { return e.reg }, Logger: slog.New(slog.DiscardHandler)})
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
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("RunControllers did not return within 10s of its context's end")
	}
}
