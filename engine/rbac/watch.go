package rbac

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tidwall/gjson"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// Store is what the Authorizer watches. *engine.Store satisfies it.
type Store interface {
	Watch(ctx context.Context, rv *schemas.ResourceVersion, namespace string, req engine.WatchRequest) (*engine.Watch, error)
}

var _ Store = (*engine.Store)(nil)

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

// rewatchDelay is the pause before a failed watch, or a look for a
// resource the registry does not serve yet, is tried again.
const rewatchDelay = time.Second

// Run keeps the indexes up to date with watches of the four resources
// in store until ctx ends. Synced reports when each has been listed once.
// (The store is given here, not to New, so that the Store can be built
// with WriteChecks.)
func (a *Authorizer) Run(ctx context.Context, store Store) {
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

// watch keeps kind k up to date until ctx ends: a watch that ends starts
// again after the last event it applied, or with a fresh list of every
// object when it cannot (too old, or it ended within the list).
func (a *Authorizer) watch(ctx context.Context, store Store, k kind) {
	from, warned := "", false
	for ctx.Err() == nil {
		rv := a.cfg.Registry().Lookup(Group, Version, plurals[k])
		if rv == nil {
			if !warned {
				a.log.Warn("RBAC resource not served; waiting for it", "resource", plurals[k]+"."+Group)
				warned = true
			}
			sleep(ctx, rewatchDelay)
			continue
		}
		w, err := store.Watch(ctx, rv, "", watchRequest(from))
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			from = ""
			continue
		}
		if err != nil {
			a.log.Warn("watch failed; retrying", "resource", plurals[k]+"."+Group, "err", err)
			sleep(ctx, rewatchDelay)
			continue
		}
		from = a.drain(ctx, k, w, from)
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

// drain applies w's events to the index until it ends and returns the
// resourceVersion to start again from. The objects of a list replace
// kind k's at once, when the bookmark that ends them comes.
func (a *Authorizer) drain(ctx context.Context, k kind, w *engine.Watch, from string) string {
	listing := from == ""
	var listed []any
	for {
		ev, err := w.Next(ctx)
		if err != nil {
			if listing || ctx.Err() == nil && !errors.Is(err, engine.ErrWatchClosed) {
				return ""
			}
			return from
		}
		meta := gjson.GetBytes(ev.Object, "metadata")
		if ev.Type == storage.EventBookmark {
			if listing && meta.Get("annotations").Get(gjson.Escape(metav1.InitialEventsAnnotationKey)).Str == "true" {
				a.ix.replace(k, listed)
				listing, listed = false, nil
				a.synced[k].Store(true)
				a.ix.notify() // the Aggregator waits for this list
			}
		} else if obj, err := a.event(k, ev, listing); err != nil {
			a.log.Warn("RBAC object not understood; ignored", "resource", plurals[k], "name", meta.Get("name").Str, "err", err)
		} else if obj != nil {
			listed = append(listed, obj)
		}
		if v := meta.Get("resourceVersion").Str; v != "" && !listing {
			from = v
		}
	}
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

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
