package plugins

// PluginHealth is the state of one plugin, for /readyz and metrics.
type PluginHealth struct {
	Name      string
	Running   bool
	Restarts  int
	LastError string
	// State is one of "idle" (not started yet: plugins start on first
	// use), "running", "restarting" (died; a restart is due after backoff)
	// or "failed" (the last start failed; the next use tries again).
	State string
}
