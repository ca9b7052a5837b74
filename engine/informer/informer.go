package informer

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// Feed is what Run keeps up to date with a resource's objects, as an
// informer keeps its store: every object at once, then each change.
type Feed interface {
	// Replace is given every object (ADDED events) whenever a watch
	// starts over: the first time, and after a watch could not go on
	// where the last one ended. Objects not among them are gone.
	Replace(objects []engine.WatchEvent)
	// Apply is given each change after the last Replace (never a
	// BOOKMARK).
	Apply(ev engine.WatchEvent)
}

// DefaultRetryDelay is the pause before a failed watch, or a look for a
// resource that is not served, is tried again when Config.RetryDelay
// is 0.
const DefaultRetryDelay = time.Second

// Config configures Run.
type Config struct {
	Store engine.Watcher
	// Resource returns the version to watch, looked up again at every
	// start (a reload may swap it); nil while it is not served, and the
	// watch waits for it.
	Resource func() *schemas.ResourceVersion
	Feed     Feed
	// Name is the resource as logs name it.
	Name       string
	Logger     *slog.Logger
	RetryDelay time.Duration
}

// Run feeds cfg.Feed with the objects of cfg.Resource until ctx ends. A
// watch that ends is started again after the last event it applied; one
// that cannot start there (too old) starts over with every object
// (Feed.Replace).
func Run(ctx context.Context, cfg Config) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.RetryDelay <= 0 {
		cfg.RetryDelay = DefaultRetryDelay
	}
	from, warned := "", false
	for ctx.Err() == nil {
		rv := cfg.Resource()
		if rv == nil {
			if !warned {
				cfg.Logger.Warn("resource not served; waiting for it", "resource", cfg.Name)
				warned = true
			}
			background.Sleep(ctx, cfg.RetryDelay)
			continue
		}
		w, err := cfg.Store.Watch(ctx, engine.Ref{Version: rv}, watchRequest(from))
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			from = ""
			continue
		}
		if err != nil {
			cfg.Logger.Warn("watch failed; retrying", "resource", cfg.Name, "err", err)
			background.Sleep(ctx, cfg.RetryDelay)
			continue
		}
		from = drain(ctx, w, from, cfg)
		w.Stop()
	}
}

// watchRequest starts after from, or with every object and a bookmark
// that marks their end when from is "".
func watchRequest(from string) engine.WatchRequest {
	if from != "" {
		return engine.WatchRequest{ResourceVersion: from, AllowBookmarks: true}
	}
	initial := true
	return engine.WatchRequest{ResourceVersionMatch: string(metav1.ResourceVersionMatchNotOlderThan), SendInitialEvents: &initial, AllowBookmarks: true}
}

// drain hands w's events to the feed until it ends and returns the
// resourceVersion to start again from ("" to start over). The objects
// of a list go to Replace together, when the bookmark that ends them
// comes.
func drain(ctx context.Context, w *engine.Watch, from string, cfg Config) string {
	listing := from == ""
	var listed []engine.WatchEvent
	for {
		ev, err := w.Next(ctx)
		if err != nil {
			if listing || ctx.Err() == nil && !errors.Is(err, engine.ErrWatchClosed) {
				if ctx.Err() == nil {
					cfg.Logger.Warn("watch ended; starting over from every object", "resource", cfg.Name, "err", err)
				}
				return ""
			}
			return from
		}
		meta := gjson.GetBytes(ev.Object, "metadata")
		switch {
		case ev.Type == storage.EventBookmark:
			if listing && meta.Get("annotations").Get(gjson.Escape(metav1.InitialEventsAnnotationKey)).Str == "true" {
				cfg.Feed.Replace(listed)
				listing, listed = false, nil
			}
		case listing:
			listed = append(listed, ev)
		default:
			cfg.Feed.Apply(ev)
		}
		if v := meta.Get("resourceVersion").Str; v != "" && !listing {
			from = v
		}
	}
}

// FeedFunc is a Feed for work queues, which care for each object and not
// for the set: every object of a Replace and every change go to f alike.
type FeedFunc func(engine.WatchEvent)

// Replace gives f each object.
func (f FeedFunc) Replace(objects []engine.WatchEvent) {
	for _, ev := range objects {
		f(ev)
	}
}

// Apply gives f the change.
func (f FeedFunc) Apply(ev engine.WatchEvent) { f(ev) }
