package plugins

import (
	"fmt"

	"github.com/specd-io/specd/plugins/hook"
)

// ReadyCheck is one readiness line (hook.ReadyCheck).
type ReadyCheck = hook.ReadyCheck

// ReadyChecks are one line per plugin known now (the directory is read
// again at each CheckBindings). They are informational: a plugin that is
// down should not make specd unready (kube-apiserver stays ready while an
// admission webhook is down); its binding's failure policy answers.
func (h *Host) ReadyChecks() []ReadyCheck {
	var checks []ReadyCheck
	for _, name := range h.Names() {
		p, _ := h.lookup(name) // Names lists known plugins, never removed
		checks = append(checks, ReadyCheck{Name: "plugin/" + name, Check: func() error { return healthError(p.health()) }})
	}
	return checks
}

// healthError says what is wrong with a plugin, nil when nothing is: a
// plugin not started yet is fine (plugins start on first use).
func healthError(h PluginHealth) error {
	switch h.State {
	case stateRestarting, stateFailed:
		return fmt.Errorf("%s after %d restarts: %s", h.State, h.Restarts, h.LastError)
	}
	return nil
}
