package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/controller"
	"github.com/specd-io/specd/plugins"
	"github.com/specd-io/specd/plugins/events"
	"github.com/specd-io/specd/server"
)

// openPlugins finds the plugins of --plugins; it starts none. They call
// back through callbacks, bound once the store exists.
// Their Events go to events, or through callbacks when it is nil.
func openPlugins(cfg serveConfig, callbacks *plugins.LateCallbacks, events events.Sink, log *slog.Logger) (*plugins.Host, error) {
	host, err := plugins.NewHost(plugins.HostConfig{Dir: cfg.Plugins, Logger: log.With("component", "plugins"), Callbacks: callbacks, Events: events})
	if err != nil {
		return nil, fmt.Errorf("--plugins: %w", err)
	}
	return host, nil
}

// pluginChecks are the plugins' informational /readyz lines.
func pluginChecks(host *plugins.Host) func() []server.Check {
	return func() []server.Check {
		var checks []server.Check
		for _, c := range host.ReadyChecks() {
			checks = append(checks, server.Check{Name: c.Name, Informational: true, Check: c.Check})
		}
		return checks
	}
}

// controllers runs the controllers of the reconcile plugins until ctx
// ends. specd runs them in the elected replica only (backgroundJobs).
func controllers(cfg controller.ServeConfig) background.Job {
	return background.JobFunc(func(ctx context.Context) { controller.RunControllers(ctx, cfg) })
}
