package crd

import (
	"context"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/crdobject"
)

// Applier is the served schema set the CRDs feed: *serving.Reloads.
type Applier interface {
	// SetDeclared serves declared (with the schema files) instead of
	// the documents set before.
	SetDeclared(ctx context.Context, declared []schemas.Declared) error
	// CheckDeclared tells whether SetDeclared(declared) would load and
	// pass the compatibility gate.
	CheckDeclared(ctx context.Context, declared []schemas.Declared) error
}

// Config configures an API.
type Config struct {
	// Registry returns the served registry.
	Registry func() *schemas.Registry
	Logger   *slog.Logger
}

// API is the CRD API's state on one replica: the CRDs the Feed has seen,
// the documents of those served, and the schema set they feed (Bind).
type API struct {
	cfg     Config
	log     *slog.Logger
	applier atomic.Pointer[Applier]

	mu   sync.Mutex
	crds map[string]*object // every CRD, by name
	// docs are the documents of the served CRDs, by name.
	docs map[string][]schemas.Declared
	// changed is signalled when docs change (Feed).
	changed chan struct{}
}

// New returns an API; Bind gives it the schema set.
func New(cfg Config) *API {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &API{cfg: cfg, log: cfg.Logger.With("component", "crds"), crds: map[string]*object{},
		docs: map[string][]schemas.Declared{}, changed: make(chan struct{}, 1)}
}

// Bind gives the API the schema set it feeds and checks writes against;
// until then a CRD write is refused as unavailable.
func (a *API) Bind(applier Applier) { a.applier.Store(&applier) }

func (a *API) bound() Applier {
	if p := a.applier.Load(); p != nil {
		return *p
	}
	return nil
}

// declared is the documents of every served CRD, but the one named
// without, in name order, with extra added.
func (a *API) declared(without string, extra []schemas.Declared) []schemas.Declared {
	a.mu.Lock()
	defer a.mu.Unlock()
	names := make([]string, 0, len(a.docs))
	for name := range a.docs {
		if name != without {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var out []schemas.Declared
	for _, name := range names {
		out = append(out, a.docs[name]...)
	}
	return append(out, extra...)
}

// snapshot returns the CRDs of group, by name; all when group is "".
func (a *API) snapshot(group string) map[string]*object {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := map[string]*object{}
	for name, o := range a.crds {
		if group == "" || o.Spec.Group == group {
			out[name] = o
		}
	}
	return out
}

// get returns the CRD named name as last seen, nil for none.
func (a *API) get(name string) *object {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.crds[name]
}

// servedDocs converts o into its documents when it is served, logging
// what cannot be.
func (a *API) servedDocs(o *object) []schemas.Declared {
	if !o.served() {
		return nil
	}
	docs, err := crdobject.Documents(o.asServed())
	if err != nil {
		a.log.Warn("CustomResourceDefinition cannot be served", "name", o.Meta.Name, "err", err)
		return nil
	}
	return docs
}

// awaitPoll is how often AwaitAny looks for a CRD.
const awaitPoll = 100 * time.Millisecond

// AwaitAny returns once the Feed has seen a CRD, or ctx ends: a replica
// with no CRD need not campaign for the Controller.
func (a *API) AwaitAny(ctx context.Context) {
	for ctx.Err() == nil {
		a.mu.Lock()
		n := len(a.crds)
		a.mu.Unlock()
		if n > 0 {
			return
		}
		background.Sleep(ctx, awaitPoll)
	}
}
