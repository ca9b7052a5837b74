package main

import (
	"github.com/specd-io/specd/engine/statusapi"
	"github.com/specd-io/specd/plugins"
	"github.com/specd-io/specd/server"
)

// pluginChecks are /readyz's informational lines, one per plugin: a
// plugin that is down does not make specd unready.
func pluginChecks(host *plugins.Host) func() []server.Check {
	return func() []server.Check {
		var checks []server.Check
		for _, c := range host.ReadyChecks() {
			checks = append(checks, server.Check{Name: c.Name, Informational: true, Check: c.Check})
		}
		return checks
	}
}

// pluginStates is the plugins' health as statusapi's Plugin objects.
func pluginStates(host *plugins.Host) func() []statusapi.Plugin {
	return func() []statusapi.Plugin {
		var out []statusapi.Plugin
		for _, h := range host.Health() {
			out = append(out, statusapi.Plugin{Name: h.Name, State: h.State, Running: h.Running, Restarts: h.Restarts, LastError: h.LastError})
		}
		return out
	}
}
