package main

import (
	"context"
	"fmt"
	"log/slog"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// runElect campaigns for the Lease with client-go's leaderelection and a
// LeaseLock, as a component written on client-go does. It leads until ctx
// ends (SIGTERM), then releases the Lease so another candidate takes it at
// once, and returns.
func runElect(ctx context.Context, log *slog.Logger, cfg *rest.Config, c common) error {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("clientset: %w", err)
	}
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: c.namespace, Name: c.name},
		Client:     client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: c.identity},
	}
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   c.lease,
		RenewDeadline:   c.renew,
		RetryPeriod:     c.retry,
		ReleaseOnCancel: true,
		Name:            c.name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { log.Info("became leader") },
			OnStoppedLeading: func() { log.Info("stopped leading") },
			OnNewLeader:      func(id string) { log.Info("leader seen", "leader", id) },
		},
	})
	if err != nil {
		return fmt.Errorf("leader elector: %w", err)
	}
	elector.Run(ctx)
	return nil
}
