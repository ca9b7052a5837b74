package crd

import (
	"context"
	"errors"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/specd-io/specd/check"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/serving"
)

// Config configures an API.
type Config struct {
	// Registry returns the served registry.
	Registry func() *schemas.Registry
	// Schemas judge a CRD write: would the schema set load, and pass
	// the compatibility gate, with it. Without them every CRD write is
	// refused as unavailable.
	Schemas *serving.Set
	// Stored tells the gate in which versions objects are stored.
	Stored check.StoredObjects
	Logger *slog.Logger
}

// API is the CRD API's state on one replica: the CRDs the Feed has seen,
// and the documents of those served, which RunFeed serves.
type API struct {
	cfg Config
	log *slog.Logger

	mu   sync.Mutex
	crds map[string]*object // every CRD, by name
	// held are the names the CRDs in crds were accepted with.
	held heldNames
	// decls are the declarations of the served CRDs, by name.
	decls map[string]*schemas.Declarations
	// changed is signalled when decls change (Feed).
	changed chan struct{}
	// listed is set once the Feed has every CRD, synced once they were
	// handed to the schema set (Ready).
	listed, synced atomic.Bool
}

// New returns an API.
func New(cfg Config) *API {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &API{cfg: cfg, log: cfg.Logger.With("component", "crds"), crds: map[string]*object{}, held: heldNames{},
		decls: map[string]*schemas.Declarations{}, changed: make(chan struct{}, 1)}
}

// declared is the declarations of every served CRD, in name order.
func (a *API) declared() []*schemas.Declarations {
	a.mu.Lock()
	defer a.mu.Unlock()
	names := make([]string, 0, len(a.decls))
	for name := range a.decls {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]*schemas.Declarations, 0, len(names))
	for _, name := range names {
		out = append(out, a.decls[name])
	}
	return out
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

// servedDecls parses what o, decoded from data, declares under its
// accepted names when it is served, nil otherwise or when it does not
// parse (logged).
func (a *API) servedDecls(o *object, data []byte) *schemas.Declarations {
	if !o.served() {
		return nil
	}
	d, err := declarations(data, &o.Status.AcceptedNames)
	if err == nil {
		err = d.Err()
	}
	if err != nil {
		a.log.Warn("CustomResourceDefinition cannot be served", "name", o.Meta.Name, "err", err)
		return nil
	}
	// Served until its objects are gone; discovery shows it terminates.
	if o.terminating() {
		d.MarkTerminating()
	}
	// Loaded but not served until Established, which the Controller
	// writes once the registry holds it: kube-apiserver lists only
	// Established CRDs in discovery, and a client that waited for the
	// condition must find discovery and the resource agree with it.
	if !isTrue(o.Status.Conditions, Established) {
		d.MarkInstalling()
	}
	return d
}

// ErrNotSynced is Ready's error until the CRDs stored at the start are
// served.
var ErrNotSynced = errors.New("crd: the CustomResourceDefinitions are not loaded yet")

// Ready is a readiness check (kube-apiserver's crd-informer-synced): nil
// once the CRDs stored when specd started were handed to the schema set,
// so that a ready specd serves the resources they declare. It passes when
// the CRD API is disabled.
func (a *API) Ready() error {
	if a.synced.Load() || Resource(a.cfg.Registry()) == nil {
		return nil
	}
	return ErrNotSynced
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
