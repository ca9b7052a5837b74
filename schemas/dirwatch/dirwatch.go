package dirwatch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

const (
	// DefaultQuiet is how long the tree must stay unchanged before a
	// change is reported: longer than the gaps between the steps of one
	// save by an editor, short enough to feel immediate.
	DefaultQuiet = 300 * time.Millisecond
	// DefaultMaxWait bounds the delay of a report while changes keep
	// coming.
	DefaultMaxWait = 5 * time.Second
)

// Options tune a Watcher.
type Options struct {
	// Quiet is DefaultQuiet when 0.
	Quiet time.Duration
	// MaxWait is DefaultMaxWait when 0.
	MaxWait time.Duration
	// Logger gets the watcher's own problems; slog.Default() when nil.
	Logger *slog.Logger
}

// Watcher watches one directory tree.
type Watcher struct {
	dir  string
	opts Options
	log  *slog.Logger
	fsw  *fsnotify.Watcher
}

// New starts watching dir and every folder under it. Run reports the
// changes; Close (or the end of Run) stops watching.
func New(dir string, opts Options) (*Watcher, error) {
	if opts.Quiet <= 0 {
		opts.Quiet = DefaultQuiet
	}
	if opts.MaxWait <= 0 {
		opts.MaxWait = DefaultMaxWait
	}
	if opts.MaxWait < opts.Quiet {
		opts.MaxWait = opts.Quiet
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("dirwatch: %w", err)
	}
	w := &Watcher{dir: dir, opts: opts, log: opts.Logger, fsw: fsw}
	if err := w.addTree(dir); err != nil {
		_ = fsw.Close()
		return nil, err
	}
	return w, nil
}

// addTree watches dir and the folders under it. A folder that vanishes
// while it is walked is skipped: its removal is an event of its parent.
func (w *Watcher) addTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p != dir && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return fmt.Errorf("dirwatch: %w", err)
		}
		if !d.IsDir() {
			return nil
		}
		if err := w.fsw.Add(p); err != nil {
			if p != dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipDir
			}
			return fmt.Errorf("dirwatch: watch %s: %w", p, err)
		}
		return nil
	})
}

// Close stops watching.
func (w *Watcher) Close() error { return w.fsw.Close() }

// Run calls changed, from Run's goroutine, each time the tree has changed
// and then stayed quiet for Options.Quiet (or changed for Options.MaxWait
// without a pause), until ctx ends; then it closes the watcher. Changes
// made while changed runs are reported after it returns.
func (w *Watcher) Run(ctx context.Context, changed func()) {
	defer w.fsw.Close()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var first time.Time // of the pending changes; zero when none
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			if !w.relevant(ev) {
				continue
			}
			now := time.Now()
			if first.IsZero() {
				first = now
			}
			timer.Reset(min(w.opts.Quiet, first.Add(w.opts.MaxWait).Sub(now)))
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			// Lost events (a queue overflow) are changes not seen: read
			// everything again.
			w.log.Warn("schema directory watch", "dir", w.dir, "err", err)
			if first.IsZero() {
				first = time.Now()
			}
			timer.Reset(w.opts.Quiet)
		case <-timer.C:
			first = time.Time{}
			changed()
		}
	}
}

// relevant reports whether ev may change what a reload reads, and
// watches the folders it creates.
func (w *Watcher) relevant(ev fsnotify.Event) bool {
	// A change of mode alone (touch, chmod) changes no content.
	if ev.Op == fsnotify.Chmod {
		return false
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			if err := w.addTree(ev.Name); err != nil {
				w.log.Warn("schema directory watch: new folder", "dir", ev.Name, "err", err)
			}
		}
	}
	return true
}
