package serving

import "github.com/specd-io/specd/schemas/dirwatch"

// watch starts watching the schema directory with Config.Watch, before
// the first load: a change of a file while specd starts (seconds with
// many types: schemas, etcd, plugins) waits in the watcher's queue and is
// acted on once Serve runs, not lost. unwatch stops watching.
func watch(cfg Config) (watcher *dirwatch.Watcher, watchErr error, unwatch func()) {
	if cfg.Watch {
		// An error is logged once specd serves: a directory that cannot
		// be read stops the start with its own error first.
		watcher, watchErr = dirwatch.New(cfg.Dir, dirwatch.Options{Logger: cfg.Logger})
	}
	return watcher, watchErr, func() {
		if watcher != nil {
			_ = watcher.Close()
		}
	}
}
