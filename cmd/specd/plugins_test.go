package main

import (
	"testing"
)

func TestParseReconcileWorkers(t *testing.T) {
	cfg, err := parseServeFlags([]string{"--schemas", "s", "--reconcile-workers", "5"})
	if err != nil || cfg.ReconcileWorkers != 5 {
		t.Errorf("--reconcile-workers 5: %d, %v", cfg.ReconcileWorkers, err)
	}
	if _, err := parseServeFlags([]string{"--schemas", "s", "--reconcile-workers", "-1"}); err == nil {
		t.Error("--reconcile-workers -1 accepted")
	}
}
