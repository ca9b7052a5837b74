package etcdcare

import (
	"context"
	"errors"
	"io/fs"
	"os"
)

// Opening is an Open under way. specd starts its etcd while it loads the
// schemas: the embedded etcd's start is mostly waiting on raft, and a
// start with many CRD files is mostly their parsing, so the two overlap.
type Opening struct {
	cfg    OpenConfig
	done   chan struct{}
	opened *Opened
	err    error
	// madeDir is the embedded etcd's data directory when it did not
	// exist before this Open, so that Abandon leaves nothing behind.
	madeDir string
}

// OpenAsync starts Open in the background and returns at once; Wait or
// Abandon must follow.
func OpenAsync(ctx context.Context, cfg OpenConfig) *Opening {
	o := &Opening{cfg: cfg, done: make(chan struct{})}
	if dir := cfg.Embedded.DataDir; len(cfg.Servers) == 0 && dir != "" {
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			o.madeDir = dir
		}
	}
	go func() {
		defer close(o.done)
		o.opened, o.err = open(ctx, cfg)
	}()
	return o
}

// Wait returns what Open returned, once it has, and logs the embedded
// etcd's start as Open does. The log waits for Wait: a start abandoned
// for a broken schema directory prints only the schemas' problems.
func (o *Opening) Wait() (*Opened, error) {
	<-o.done
	if o.err == nil {
		o.opened.logStarted(o.cfg)
	}
	return o.opened, o.err
}

// Abandon waits for Open to end and closes what it opened, for a start
// that failed elsewhere meanwhile: the embedded etcd is stopped cleanly,
// and its data directory removed when this Open made it. An Open that
// failed removes nothing: another specd may hold that directory.
func (o *Opening) Abandon() {
	<-o.done
	if o.err != nil {
		return
	}
	o.opened.Close()
	if o.madeDir != "" {
		_ = os.RemoveAll(o.madeDir)
	}
}
