package hook

// Health is the state of one plugin, as the plugin host reports it and
// specd's status API (engine/statusapi) shows it.
type Health struct {
	Name      string
	Running   bool
	Restarts  int
	LastError string
	// State is one of "idle" (not started yet: plugins start on first
	// use), "running", "restarting" (died; a restart is due after backoff)
	// or "failed" (the last start failed; the next use tries again).
	State string
}

// ReadyCheck is one readiness line of a plugin: Check says what is
// wrong, nil when nothing is.
type ReadyCheck struct {
	Name  string // "plugin/NAME"
	Check func() error
}
