package serving

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/specd-io/specd/converters"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/dirwatch"
)

// Config is what a Set serves and how it judges reloads.
type Config struct {
	// Dir is the schema directory.
	Dir string
	// Builtin are the schema files built into specd (builtin.Schemas()
	// of package schemas/builtin), loaded with Dir at every load. Their
	// groups cannot be disabled.
	Builtin []schemas.Builtin
	// Disable names the groups ("G") and group versions ("G/V") not to
	// serve.
	Disable []string
	// AllowBreaking lets a reload break clients or stored objects of beta
	// and stable versions (gate.go).
	AllowBreaking bool
	// NoCRDGate lets the resources of CustomResourceDefinition objects
	// change as kube-apiserver lets them (a new default, a renamed
	// version, a stricter schema), without their annotation
	// specd.io/allow-breaking; schema files are still judged (gate.go).
	NoCRDGate bool
	// Watch reloads when files under Dir change.
	Watch bool
	// ReloadSignals are reload requests (SIGHUP): the caller catches them
	// from its own start, so that one during the start neither ends the
	// process nor is lost; Serve acts on them. Nil: none.
	ReloadSignals <-chan os.Signal
	// Logger gets the reloads' outcome; slog.Default() when nil.
	Logger *slog.Logger
	// CheckBindings, when set, refuses a world whose hook bindings name
	// plugins that cannot run.
	CheckBindings func(*schemas.Registry) error
}

// world is everything specd serves that the schema directory decides,
// swapped as one: a request takes the registry once and everything it
// derives (routes, discovery, OpenAPI, hook bindings, and through
// ConverterFor the conversion rules) comes from that one world.
type world struct {
	reg  *schemas.Registry
	conv *converters.Set
	// digests are the schema files' content hashes, by file name.
	digests map[string]string
}

func newWorld(reg *schemas.Registry, conv *converters.Set, digests map[string]string) *world {
	return &world{reg: reg, conv: conv, digests: digests}
}

// retainedWorlds is how many replaced worlds keep answering ConverterFor
// for the requests that took one before a swap and convert after it.
const retainedWorlds = 4

// Set is the served world, and the reloads that replace it (Serve).
type Set struct {
	cfg    Config
	log    *slog.Logger
	loader *schemas.Loader

	// watcher watches the schema directory since New (nil without
	// Config.Watch, or when it could not: watchErr).
	watcher  *dirwatch.Watcher
	watchErr error
	unwatch  func()

	current atomic.Pointer[world]
	// retired are the last replaced worlds, newest first.
	retired atomic.Pointer[[]*world]

	mu     sync.Mutex // one reload at a time
	status reloadStatus
	// declared are the CRD objects' declarations (SetDeclared), loaded
	// with the files at every reload; guarded by mu.
	declared []*schemas.Declarations
}

// New starts watching the schema directory (watch), then loads the first
// world; it fails, watching no more, when the directory does not load.
// Close stops watching.
func New(ctx context.Context, cfg Config) (*Set, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if err := checkDisable(cfg); err != nil {
		return nil, err
	}
	s := &Set{cfg: cfg, log: cfg.Logger, loader: schemas.NewLoader(cfg.Dir, cfg.Builtin...)}
	s.watcher, s.watchErr, s.unwatch = watch(cfg)
	if err := s.start(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close stops watching the directory.
func (s *Set) Close() { s.unwatch() }

// Registry is the served registry.
func (s *Set) Registry() *schemas.Registry { return s.current.Load().reg }

// ConverterFor returns the conversion rules of the world res belongs to:
// engine.Options.Converters. A resource of an older world than those
// retained is one whose schema did not change since (the watches of a
// changed one are ended), so the served world's rules are its rules.
func (s *Set) ConverterFor(res *schemas.Resource) converters.Converter {
	cur := s.current.Load()
	if cur.reg.Holds(res) {
		return cur.conv
	}
	if old := s.retired.Load(); old != nil {
		for _, w := range *old {
			if w.reg.Holds(res) {
				return w.conv
			}
		}
	}
	return cur.conv
}

// start loads the first world; specd does not start without one.
func (s *Set) start(ctx context.Context) error {
	w, err := s.build(ctx, nil)
	if err != nil {
		return err
	}
	s.current.Store(w)
	s.status.succeeded(Outcome{At: time.Now(), Trigger: "initial", Result: "applied"})
	return nil
}

// build loads the schema directory into a world that may be served:
// every schema, conversion rule and hook binding loads, and every
// version's conversion rules round-trip (proven again only for the groups
// that changed since served). It returns served itself when no file
// changed.
func (s *Set) build(ctx context.Context, served *world) (*world, error) {
	return s.buildWith(ctx, served, s.declared)
}

// buildWith is build with the declarations of CRD objects.
func (s *Set) buildWith(ctx context.Context, served *world, declared []*schemas.Declarations) (*world, error) {
	reg, digests, err := s.loader.LoadWith(declared...)
	if err != nil {
		return nil, err
	}
	if served != nil && maps.Equal(served.digests, digests) {
		return served, nil
	}
	if reg, err = reg.Disable(s.disabled(reg, served)...); err != nil {
		return nil, fmt.Errorf("--disable: %w", err)
	}
	conv, err := converters.NewSetFrom(reg, servedRules(served))
	if err != nil {
		return nil, err
	}
	w := newWorld(reg, conv, digests)
	if err := proveRoundTrips(ctx, changedGroups(served, w), conv); err != nil {
		return nil, err
	}
	if s.cfg.CheckBindings != nil {
		if err := s.cfg.CheckBindings(reg); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// servedRules are the conversion rules of served, nil for none: a
// world's rules are compiled again only for the groups that changed.
func servedRules(served *world) *converters.Set {
	if served == nil {
		return nil
	}
	return served.conv
}

// disabled are the names of Config.Disable to disable in reg. A disabled
// group whose file was removed is no typo: only the start (nothing
// served) refuses names that nothing declares.
func (s *Set) disabled(reg *schemas.Registry, served *world) []string {
	if served == nil {
		return s.cfg.Disable
	}
	return slices.DeleteFunc(slices.Clone(s.cfg.Disable), func(name string) bool {
		_, err := reg.Disable(name)
		return errors.Is(err, schemas.ErrNotDeclared)
	})
}

// changedGroups is the part of next whose conversion must be proven: the
// resources that are new or changed since served, in their groups (all
// of next when nothing is served). A resource's rules convert its own
// objects only, so one CRD added to a group of hundreds is proven alone.
func changedGroups(served, next *world) *schemas.Registry {
	if served == nil {
		return next.reg
	}
	var groups []*schemas.Group
	schemas.EachChanged(served.reg, next.reg, func(o, n *schemas.Resource) {
		if n == nil || schemas.SameDeclaration(o, n) {
			return
		}
		if len(groups) == 0 || groups[len(groups)-1].Name != n.Group {
			groups = append(groups, &schemas.Group{Name: n.Group})
		}
		last := groups[len(groups)-1]
		last.Resources = append(last.Resources, n)
	})
	return schemas.NewRegistry(groups)
}

// checkDisable refuses to disable an essential built-in group: specd
// itself relies on them (RBAC authorization reads its roles and
// bindings), so turning one off would not make specd serve less but
// break it. The core group and Leases may be disabled.
func checkDisable(cfg Config) error {
	for _, name := range cfg.Disable {
		if err := schemas.CheckNotEssential(schemas.DisableGroup(name), cfg.Builtin...); err != nil {
			return fmt.Errorf("--disable %s: %w; specd relies on it, so it cannot be disabled", name, err)
		}
	}
	return nil
}
