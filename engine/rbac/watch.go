package rbac

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/tidwall/gjson"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/informer"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// Group and Version are where the RBAC resources are served.
const (
	Group   = rbacv1.GroupName
	Version = "v1"
)

// kind is one of the four RBAC resources.
type kind int

const (
	clusterRoles kind = iota
	roles
	clusterRoleBindings
	roleBindings
	kinds // how many
)

// plurals are the resources' names, by kind.
var plurals = [kinds]string{"clusterroles", "roles", "clusterrolebindings", "rolebindings"}

// Run keeps the indexes up to date with watches of the four resources
// in store until ctx ends. Synced reports when each has been listed once.
// (The store is given here, not to New, so that the Store can be built
// with WriteChecks.)
func (a *Authorizer) Run(ctx context.Context, store engine.Watcher) {
	var wg sync.WaitGroup
	for k := range kinds {
		wg.Go(func() { a.watch(ctx, store, k) })
	}
	wg.Wait()
}

// Synced reports whether every RBAC resource has been listed into the
// indexes: until then an Authorizer knows too little to decide (the
// readiness check of /readyz).
func (a *Authorizer) Synced() bool {
	for k := range kinds {
		if !a.synced[k].Load() {
			return false
		}
	}
	return true
}

// watch keeps kind k up to date until ctx ends (informer.Run).
func (a *Authorizer) watch(ctx context.Context, store engine.Watcher, k kind) {
	informer.Run(ctx, informer.Config{
		Store:    store,
		Resource: func() *schemas.ResourceVersion { return a.cfg.Registry().Lookup(Group, Version, plurals[k]) },
		Feed:     kindFeed{a: a, k: k},
		Name:     plurals[k] + "." + Group,
		Logger:   a.log,
	})
}

// kindFeed applies the watch of kind k to the indexes.
type kindFeed struct {
	a *Authorizer
	k kind
}

// Replace swaps kind k's objects for a list at once, and marks k synced.
func (f kindFeed) Replace(objects []engine.WatchEvent) {
	listed := make([]any, 0, len(objects))
	for _, ev := range objects {
		if obj, err := f.a.event(f.k, ev, true); err != nil {
			f.a.notUnderstood(f.k, ev, err)
		} else if obj != nil {
			listed = append(listed, obj)
		}
	}
	f.a.ix.replace(f.k, listed)
	f.a.synced[f.k].Store(true)
	f.a.ix.notify() // the Aggregator waits for this list
}

// Apply applies one change of kind k.
func (f kindFeed) Apply(ev engine.WatchEvent) {
	if _, err := f.a.event(f.k, ev, false); err != nil {
		f.a.notUnderstood(f.k, ev, err)
	}
}

func (a *Authorizer) notUnderstood(k kind, ev engine.WatchEvent, err error) {
	a.log.Warn("RBAC object not understood; ignored", "resource", plurals[k], "name", gjson.GetBytes(ev.Object, "metadata.name").Str, "err", err)
}

// event applies one event of kind k; an object of a list is returned to
// be applied with the others instead.
func (a *Authorizer) event(k kind, ev engine.WatchEvent, listing bool) (any, error) {
	if ev.Type == storage.EventDeleted {
		meta := gjson.GetBytes(ev.Object, "metadata")
		a.ix.remove(k, meta.Get("namespace").Str, meta.Get("name").Str)
		return nil, nil
	}
	obj, err := decode(k, ev.Object)
	if err != nil || listing {
		return obj, err
	}
	a.ix.put(obj)
	return nil, nil
}

// decode reads one object of kind k.
func decode(k kind, data []byte) (any, error) {
	var obj any
	switch k {
	case clusterRoles:
		obj = &rbacv1.ClusterRole{}
	case roles:
		obj = &rbacv1.Role{}
	case clusterRoleBindings:
		obj = &rbacv1.ClusterRoleBinding{}
	default:
		obj = &rbacv1.RoleBinding{}
	}
	if err := json.Unmarshal(data, obj); err != nil {
		return nil, fmt.Errorf("decode %s: %w", plurals[k], err)
	}
	return obj, nil
}
