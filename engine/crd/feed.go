package crd

import (
	"context"
	"strings"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/informer"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/serving"
)

// FeedConfig configures RunFeed.
type FeedConfig struct {
	// Store is watched for the CRDs.
	Store engine.Watcher
	// Reloads serve the documents of the CRDs, with the schema files.
	Reloads *serving.Reloads
}

// RunFeed watches the CRDs and serves the documents of those whose
// names are accepted, through cfg.Reloads, until ctx ends. Every
// replica runs it: each serves the registry. Changes that arrive while
// a reload runs are served together by the next one.
func (a *API) RunFeed(ctx context.Context, cfg FeedConfig) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		informer.Run(ctx, informer.Config{
			Store:    cfg.Store,
			Resource: func() *schemas.ResourceVersion { return Resource(a.cfg.Registry()) },
			Feed:     a,
			Name:     Key,
			Logger:   a.log,
		})
	}()
	for {
		select {
		case <-ctx.Done():
			<-done
			return
		case <-a.changed:
			a.apply(ctx, cfg.Reloads)
		}
	}
}

// Feed is RunFeed as a job: every replica runs it.
func (a *API) Feed(cfg FeedConfig) background.Job {
	return background.JobFunc(func(ctx context.Context) { a.RunFeed(ctx, cfg) })
}

var _ informer.Feed = (*API)(nil)

// Replace is informer.Feed's: every CRD.
func (a *API) Replace(events []engine.WatchEvent) {
	a.mu.Lock()
	a.crds, a.decls, a.held = map[string]*object{}, map[string]*schemas.Declarations{}, heldNames{}
	a.mu.Unlock()
	for _, ev := range events {
		a.Apply(ev)
	}
	a.listed.Store(true)
	a.signal()
}

// Apply is informer.Feed's: one change.
func (a *API) Apply(ev engine.WatchEvent) {
	o, err := decode(ev.Object)
	if err != nil {
		a.log.Warn("cannot read a CustomResourceDefinition", "err", err)
		return
	}
	name := o.Meta.Name
	var d *schemas.Declarations
	if ev.Type != storage.EventDeleted {
		d = a.servedDecls(o, ev.Object)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if old := a.crds[name]; old != nil {
		a.held.remove(old.Spec.Group, name, old.Status.AcceptedNames)
	}
	if ev.Type == storage.EventDeleted {
		delete(a.crds, name)
	} else {
		a.crds[name] = o
		a.held.add(o.Spec.Group, name, o.Status.AcceptedNames)
	}
	if old := a.decls[name]; digestOf(old) != digestOf(d) {
		if d == nil {
			delete(a.decls, name)
		} else {
			a.decls[name] = d
		}
		a.signal()
	}
}

func (a *API) signal() {
	select {
	case a.changed <- struct{}{}:
	default:
	}
}

func digestOf(d *schemas.Declarations) string {
	if d == nil {
		return ""
	}
	return d.ServedDigest()
}

// maxExclusions bounds how often one apply leaves out the CRDs a reload
// failed on and tries again.
const maxExclusions = 3

// apply serves the documents of the served CRDs. When they do not load,
// the CRDs that the problems are in are left out, logged, and the rest
// is tried again: one broken CRD does not keep the others from being
// served.
func (a *API) apply(ctx context.Context, reloads *serving.Reloads) {
	listed := a.listed.Load()
	if listed {
		defer a.synced.Store(true)
	}
	declared := a.declared()
	for range maxExclusions {
		err := reloads.SetDeclared(ctx, declared)
		if err == nil || ctx.Err() != nil {
			return
		}
		owners := failingOwners(err)
		if len(owners) == 0 {
			a.log.Error("CustomResourceDefinitions not served: the schemas do not load", "err", err)
			return
		}
		a.log.Error("CustomResourceDefinitions left out: their schemas do not load", "owners", ownerList(owners), "err", err)
		declared = without(declared, owners)
	}
}

// failingOwners are the sources of the CRD declarations that err's
// problems are in.
func failingOwners(err error) map[string]bool {
	out := map[string]bool{}
	for _, p := range problemsOf(err) {
		if strings.HasPrefix(p.File, serving.SourcePrefix) {
			out[p.File] = true
		}
	}
	return out
}

func without(declared []*schemas.Declarations, sources map[string]bool) []*schemas.Declarations {
	var out []*schemas.Declarations
	for _, d := range declared {
		if !sources[d.Source()] {
			out = append(out, d)
		}
	}
	return out
}

func ownerList(owners map[string]bool) []string {
	out := make([]string, 0, len(owners))
	for o := range owners {
		out = append(out, o)
	}
	return out
}
