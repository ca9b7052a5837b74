package main

import (
	"context"
	"log/slog"

	"github.com/specd-io/specd/engine/kubernetesservice"
	"github.com/specd-io/specd/schemas"
)

// ensureKubernetesService points the Service default/kubernetes at the
// address this replica serves on, before it serves (after the
// namespaces: the Service is in default).
func ensureKubernetesService(ctx context.Context, store kubernetesservice.Store, reg *schemas.Registry, out outside, log *slog.Logger) error {
	ep, err := kubernetesservice.EndpointOf(out.listener.Addr(), out.tls != nil)
	if err != nil {
		return err
	}
	return kubernetesservice.Ensure(ctx, store, reg, ep, log)
}
