package main

import (
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
