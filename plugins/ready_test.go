package plugins

import (
	"strings"
	"testing"
)

func TestHealthError(t *testing.T) {
	tests := map[string]struct {
		h    PluginHealth
		want string
	}{
		"idle":       {PluginHealth{State: "idle"}, ""},
		"running":    {PluginHealth{State: "running", Running: true, Restarts: 2, LastError: "old"}, ""},
		"restarting": {PluginHealth{State: "restarting", Restarts: 3, LastError: "signal: killed"}, "restarting after 3 restarts: signal: killed"},
		"failed":     {PluginHealth{State: "failed", Restarts: 1, LastError: "exec format error"}, "failed after 1 restarts: exec format error"},
	}
	for name, tt := range tests {
		err := healthError(tt.h)
		if (err == nil) != (tt.want == "") || (err != nil && err.Error() != tt.want) {
			t.Errorf("%s: %v, want %q", name, err, tt.want)
		}
	}
}

func TestReadyChecks(t *testing.T) {
	h, _ := newHost(t, scriptsDir(t, "b", "a"), nil)
	var names []string
	for _, c := range h.ReadyChecks() {
		names = append(names, c.Name)
		if err := c.Check(); err != nil {
			t.Errorf("%s, not started yet: %v", c.Name, err)
		}
	}
	if strings.Join(names, " ") != "plugin/a plugin/b" {
		t.Errorf("checks %q, want plugin/a plugin/b", names)
	}
}
