package crd

import (
	"context"
	"strings"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// FeedConfig configures RunFeed.
type FeedConfig struct {
	Store background.Watcher
}

// RunFeed watches the CRDs and serves the documents of those whose
// names are accepted, through the bound Applier, until ctx ends. Every
// replica runs it: each serves the registry. Changes that arrive while
// a reload runs are served together by the next one.
func (a *API) RunFeed(ctx context.Context, cfg FeedConfig) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		background.Watch(ctx, background.WatchConfig{
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
			a.apply(ctx)
		}
	}
}

var _ background.Feed = (*API)(nil)

// Replace is background.Feed's: every CRD.
func (a *API) Replace(events []engine.WatchEvent) {
	a.mu.Lock()
	a.crds, a.docs = map[string]*object{}, map[string][]schemas.Declared{}
	a.mu.Unlock()
	for _, ev := range events {
		a.Apply(ev)
	}
	a.signal()
}

// Apply is background.Feed's: one change.
func (a *API) Apply(ev engine.WatchEvent) {
	o, err := decode(ev.Object)
	if err != nil {
		a.log.Warn("cannot read a CustomResourceDefinition", "err", err)
		return
	}
	name := o.Meta.Name
	var docs []schemas.Declared
	if ev.Type != storage.EventDeleted {
		docs = a.servedDocs(o)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if ev.Type == storage.EventDeleted {
		delete(a.crds, name)
	} else {
		a.crds[name] = o
	}
	if changedDocs(a.docs[name], docs) {
		if docs == nil {
			delete(a.docs, name)
		} else {
			a.docs[name] = docs
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

func changedDocs(old, next []schemas.Declared) bool {
	if len(old) != len(next) {
		return true
	}
	for i := range old {
		if old[i].Name != next[i].Name || string(old[i].Data) != string(next[i].Data) {
			return true
		}
	}
	return false
}

// maxExclusions bounds how often one apply leaves out the CRDs a reload
// failed on and tries again.
const maxExclusions = 3

// apply serves the documents of the served CRDs. When they do not load,
// the CRDs that the problems are in are left out, logged, and the rest
// is tried again: one broken CRD does not keep the others from being
// served.
func (a *API) apply(ctx context.Context) {
	applier := a.bound()
	if applier == nil {
		return
	}
	declared := a.declared("", nil)
	for range maxExclusions {
		err := applier.SetDeclared(ctx, declared)
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

// failingOwners are the owners of the declared documents err's problems
// are in.
func failingOwners(err error) map[string]bool {
	out := map[string]bool{}
	for _, p := range problemsOf(err) {
		if owner, _, ok := strings.Cut(p.File, " spec.versions["); ok && strings.HasPrefix(owner, "customresourcedefinition ") {
			out[owner] = true
		}
	}
	return out
}

func without(declared []schemas.Declared, owners map[string]bool) []schemas.Declared {
	var out []schemas.Declared
	for _, d := range declared {
		if !owners[d.Owner] {
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
