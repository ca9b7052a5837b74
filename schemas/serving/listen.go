package serving

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/specd-io/specd/schemas/dirwatch"
)

// listen makes SIGHUP a reload request and, with Config.Watch, starts
// watching the schema directory, both before the first load: a SIGHUP or
// a change of a file while specd starts (seconds with many types:
// schemas, etcd, plugins) is then acted on once Serve runs, not lost.
// Without it Go ends the process on SIGHUP. Until Serve runs, one SIGHUP
// is kept however many arrive, and the watcher's events wait in its
// queue. unlisten restores SIGHUP's default and stops watching.
func listen(cfg Config) (signals <-chan os.Signal, watcher *dirwatch.Watcher, watchErr error, unlisten func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	if cfg.Watch {
		// An error is logged once specd serves: a directory that cannot
		// be read stops the start with its own error first.
		watcher, watchErr = dirwatch.New(cfg.Dir, dirwatch.Options{Logger: cfg.Logger})
	}
	return hup, watcher, watchErr, func() {
		signal.Stop(hup)
		if watcher != nil {
			_ = watcher.Close()
		}
	}
}
