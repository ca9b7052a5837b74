package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/specd-io/specd/check"
	"github.com/specd-io/specd/converters"
	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/migrate"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/dirwatch"
	"github.com/specd-io/specd/server"
)

// world is everything specd serves that the schema directory decides,
// swapped as one: a request takes the registry once and everything it
// derives (routes, discovery, OpenAPI, hook bindings, and through
// converterFor the conversion rules) comes from that one world.
type world struct {
	reg  *schemas.Registry
	conv *converters.Set
	// digests are the schema files' content hashes, by file name.
	digests map[string]string
	// fingerprints identify what each resource is (by group resource):
	// equal when nothing that declares it changed.
	fingerprints map[string]string
	// resources are the world's own resources, to find the world of a
	// resource a request holds.
	resources map[*schemas.Resource]bool
}

func newWorld(reg *schemas.Registry, conv *converters.Set, digests map[string]string) *world {
	w := &world{reg: reg, conv: conv, digests: digests,
		fingerprints: map[string]string{}, resources: map[*schemas.Resource]bool{}}
	for _, g := range reg.Groups() {
		for _, res := range g.Resources {
			w.resources[res] = true
			w.fingerprints[res.GroupResource()] = fingerprint(res, digests)
		}
	}
	return w
}

// fingerprint is what a resource is made of: its versions, which one
// stores, which are served, and the content of each file declaring it.
func fingerprint(res *schemas.Resource, digests map[string]string) string {
	var b strings.Builder
	b.WriteString(res.StorageVersion)
	for _, rv := range res.Versions {
		fmt.Fprintf(&b, "|%s %t %t %s %s", rv.Version, rv.Storage, rv.Hidden, rv.File, digests[rv.File])
	}
	return b.String()
}

// retainedWorlds is how many replaced worlds keep answering converterFor
// for the requests that took one before a swap and convert after it.
const retainedWorlds = 4

// reloader owns the served world: it loads the schema directory, checks a
// new world against the served one, swaps it in and makes the rest of
// specd follow (reload_follow.go).
type reloader struct {
	cfg    serveConfig
	log    *slog.Logger
	loader *schemas.Loader
	// checkBindings, when set, refuses a world whose hook bindings name
	// plugins that cannot run (set by the plugin wiring).
	checkBindings func(*schemas.Registry) error
	// beforeSwap, when set, is called before a world that passed the
	// gate is served, under mu; its error fails the reload.
	beforeSwap func(ctx context.Context, old, next *world) error
	// onSwap is called after each swap, with the replaced and the new
	// world, under mu.
	onSwap func(ctx context.Context, old, next *world)
	// stored tells the gate in which versions the objects of a resource
	// are stored, so that a version may go once none is stored in it;
	// without it, removing the storage version is refused.
	stored check.StoredObjects

	// signals are the SIGHUPs caught since listen; watcher watches the
	// schema directory since listen (nil with --watch=false, or when it
	// could not: watchErr).
	signals  <-chan os.Signal
	watcher  *dirwatch.Watcher
	watchErr error

	current atomic.Pointer[world]
	// retired are the last replaced worlds, newest first.
	retired atomic.Pointer[[]*world]

	mu     sync.Mutex // one reload at a time
	status reloadStatus
}

func newReloader(cfg serveConfig, log *slog.Logger) *reloader {
	return &reloader{cfg: cfg, log: log, loader: schemas.NewLoader(cfg.Schemas)}
}

// Registry is the served registry: server.Config.Registry.
func (r *reloader) Registry() *schemas.Registry { return r.current.Load().reg }

// converterFor returns the conversion rules of the world res belongs to:
// engine.Options.Converters. A resource of an older world than those
// retained is one whose schema did not change since (the watches of a
// changed one are ended), so the served world's rules are its rules.
func (r *reloader) converterFor(res *schemas.Resource) converters.Converter {
	cur := r.current.Load()
	if cur.resources[res] {
		return cur.conv
	}
	if old := r.retired.Load(); old != nil {
		for _, w := range *old {
			if w.resources[res] {
				return w.conv
			}
		}
	}
	return cur.conv
}

// build loads the schema directory into a world that may be served:
// every schema, conversion rule and hook binding loads, and every
// version's conversion rules round-trip (proven again only for the groups
// that changed since served). It returns served itself when no file
// changed.
func (r *reloader) build(ctx context.Context, served *world) (*world, error) {
	reg, digests, err := r.loader.Load()
	if err != nil {
		return nil, err
	}
	if served != nil && maps.Equal(served.digests, digests) {
		return served, nil
	}
	disable := r.cfg.Disable
	if served != nil {
		// A disabled group whose file was removed is no typo: only the
		// start refuses --disable names that nothing declares.
		disable = slices.DeleteFunc(slices.Clone(disable), func(name string) bool {
			_, err := reg.Disable(name)
			return errors.Is(err, schemas.ErrNotDeclared)
		})
	}
	if reg, err = reg.Disable(disable...); err != nil {
		return nil, fmt.Errorf("--disable: %w", err)
	}
	conv, err := converters.NewSet(reg, converters.DeclaredRules)
	if err != nil {
		return nil, err
	}
	w := newWorld(reg, conv, digests)
	if err := proveRoundTrips(ctx, changedGroups(served, w), roundTripOf(conv)); err != nil {
		return nil, err
	}
	if r.checkBindings != nil {
		if err := r.checkBindings(reg); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// changedGroups is the part of next whose conversion must be proven: the
// groups with a resource that is new or changed since served (all of
// next when nothing is served).
func changedGroups(served, next *world) *schemas.Registry {
	if served == nil {
		return next.reg
	}
	var groups []*schemas.Group
	for _, g := range next.reg.Groups() {
		for _, res := range g.Resources {
			if fp := res.GroupResource(); served.fingerprints[fp] != next.fingerprints[fp] {
				groups = append(groups, g)
				break
			}
		}
	}
	return schemas.NewRegistry(groups)
}

// start loads the first world; specd does not start without one.
func (r *reloader) start(ctx context.Context) error {
	w, err := r.build(ctx, nil)
	if err != nil {
		return err
	}
	r.current.Store(w)
	r.status.succeeded(time.Now(), "initial")
	return nil
}

// reload loads the schema directory again and, if it loads and passes
// the gate, serves it. Otherwise the served world stays, and the error is
// kept for /readyz?verbose and the metrics until a reload succeeds.
func (r *reloader) reload(ctx context.Context, trigger string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	start := time.Now()
	served := r.current.Load()
	next, err := r.build(ctx, served)
	if err == nil && next != served {
		err = r.gate(ctx, served, next)
	}
	if err == nil && next != served && r.beforeSwap != nil {
		err = r.beforeSwap(ctx, served, next)
	}
	took := time.Since(start)
	if err != nil {
		r.status.failed(time.Now(), trigger, err)
		observeReload(resultOf(err), took)
		r.log.Error("schema reload failed; serving the previous schemas", "trigger", trigger, "err", err)
		return err
	}
	if next == served {
		r.status.succeeded(time.Now(), trigger)
		observeReload("unchanged", took)
		r.log.Debug("schemas unchanged", "trigger", trigger)
		return nil
	}
	r.swap(ctx, served, next)
	r.status.succeeded(time.Now(), trigger)
	observeReload("applied", time.Since(start))
	added, changed, removed := diffResources(served, next)
	r.log.Info("schemas reloaded", "trigger", trigger, "took", time.Since(start).Round(time.Millisecond),
		"added", added, "changed", changed, "removed", removed)
	return nil
}

// swap serves next: from the Store on, every new request sees it; then
// the rest of specd follows.
func (r *reloader) swap(ctx context.Context, old, next *world) {
	retired := []*world{old}
	if prev := r.retired.Load(); prev != nil {
		retired = append(retired, (*prev)[:min(len(*prev), retainedWorlds-1)]...)
	}
	// Retire old before next is served, so that converterFor finds every
	// resource a request may hold at any moment.
	r.retired.Store(&retired)
	r.current.Store(next)
	if r.onSwap != nil {
		r.onSwap(ctx, old, next)
	}
}

// diffResources names the resources next adds, changes and removes.
func diffResources(old, next *world) (added, changed, removed []string) {
	for gr, fp := range next.fingerprints {
		switch ofp, ok := old.fingerprints[gr]; {
		case !ok:
			added = append(added, gr)
		case ofp != fp:
			changed = append(changed, gr)
		}
	}
	for gr := range old.fingerprints {
		if _, ok := next.fingerprints[gr]; !ok {
			removed = append(removed, gr)
		}
	}
	slices.Sort(added)
	slices.Sort(changed)
	slices.Sort(removed)
	return added, changed, removed
}

// listen makes SIGHUP a reload request and, unless --watch=false,
// starts watching the schema directory, both before the first load: a
// SIGHUP or a change of a file while specd starts (seconds with many
// types: schemas, etcd, plugins) is then acted on once serveReloads
// runs, not lost. Without it Go ends the process on SIGHUP. Until
// serveReloads runs, one SIGHUP is kept however many arrive, and the
// watcher's events wait in its queue. The returned function restores
// SIGHUP's default and stops watching.
func (r *reloader) listen() (stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	r.signals = hup
	if !r.cfg.NoWatch {
		// An error is logged once specd serves: a directory that cannot
		// be read stops the start with its own error first.
		r.watcher, r.watchErr = dirwatch.New(r.cfg.Schemas, dirwatch.Options{Logger: r.log})
	}
	return func() {
		signal.Stop(hup)
		if r.watcher != nil {
			_ = r.watcher.Close()
		}
	}
}

// serveReloads makes the store's watch caches and the storage migration
// follow reloads, lets the gate read what is stored, and reloads when the
// schema directory changes (unless --watch=false) and on SIGHUP (listen),
// until ctx ends or the returned function is called; that function waits
// for a reload under way.
func (r *reloader) serveReloads(ctx context.Context, store *engine.Store, caches *servedCaches, migr *migrate.Runner) (stop func()) {
	f := &follower{store: store, caches: caches, log: r.log}
	r.onSwap = func(ctx context.Context, old, next *world) {
		f.follow(ctx, old, next)
		migr.AfterSwap(ctx, old.reg, next.reg)
	}
	r.beforeSwap = func(ctx context.Context, old, next *world) error {
		return migr.BeforeSwap(ctx, old.reg, next.reg)
	}
	r.stored = storedObjects{store: store, timeout: storedReadTimeout}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	if r.watchErr != nil {
		// SIGHUP still reloads.
		r.log.Error("cannot watch the schema directory; reload with SIGHUP", "dir", r.cfg.Schemas, "err", r.watchErr)
	}
	if r.watcher != nil {
		wg.Go(func() { r.watcher.Run(ctx, func() { _ = r.reload(ctx, "change") }) })
	}
	wg.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-r.signals:
				_ = r.reload(ctx, "SIGHUP")
			}
		}
	})
	return func() {
		cancel()
		wg.Wait()
	}
}

// readyCheck shows the last reload's error in /readyz?verbose. It is
// informational: the previous schemas are still served.
func (r *reloader) readyCheck() server.Check {
	return server.Check{Name: "schemas", Check: r.status.check, Informational: true}
}

// errRefused marks a reload the safe-evolution gate refused.
var errRefused = errors.New("schema change refused")

func resultOf(err error) string {
	if errors.Is(err, errRefused) {
		return "refused"
	}
	return "failed"
}
