package namespace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

// ErrNotServed is Bootstrap's answer when the registry serves no
// Namespace resource.
var ErrNotServed = errors.New("namespace: the registry serves no namespaces resource")

// EnsureSystem creates the System namespaces where they do not exist
// yet, and returns those it created. Every replica may run it at once:
// the System namespaces that can be deleted (kube-node-lease) are
// recreated by kube-apiserver's replicas too.
func EnsureSystem(ctx context.Context, store engine.Writer, reg *schemas.Registry, log *slog.Logger) ([]string, error) {
	rv := Resource(reg)
	if rv == nil {
		return nil, ErrNotServed
	}
	return ensureAll(ctx, store, rv, slices.Clone(System), log)
}

// Bootstrap creates the System namespaces and a Namespace for every
// namespace that holds objects of reg's namespaced resources, where they
// do not exist yet, so that a data dir written before specd served
// namespaces keeps every object reachable. It reads one object per
// resource and namespace (engine.Upkeep.HeldNamespaces). It returns the
// namespaces it created.
//
// It must not run while the namespace controller removes a namespace:
// one whose objects it saw and whose Namespace was removed before its
// create would come back, empty. specd runs it in the elected replica,
// before that replica's namespace controller.
func Bootstrap(ctx context.Context, store engine.Writer, upkeep *engine.Upkeep, reg *schemas.Registry, log *slog.Logger) ([]string, error) {
	rv := Resource(reg)
	if rv == nil {
		return nil, ErrNotServed
	}
	names := slices.Clone(System)
	for _, r := range reg.Resources() {
		if !r.Namespaced() || r.StoredWith != nil { // its keys are StoredWith's
			continue
		}
		held, err := upkeep.HeldNamespaces(ctx, r)
		if err != nil {
			return nil, fmt.Errorf("namespace: find the namespaces of %s: %w", r.GroupResource(), err)
		}
		names = append(names, held...)
	}
	return ensureAll(ctx, store, rv, names, log)
}

// ensureAll creates the namespaces names that do not exist yet, and
// returns those it created.
func ensureAll(ctx context.Context, store engine.Writer, rv *schemas.ResourceVersion, names []string, log *slog.Logger) ([]string, error) {
	slices.Sort(names)
	var created []string
	for _, name := range slices.Compact(names) {
		ok, err := ensure(ctx, store, rv, name)
		if apierrors.IsInvalid(err) {
			// A name no Namespace may have: its objects stay readable.
			if log != nil {
				log.Warn("namespace holding objects cannot be created", "name", name, "err", err)
			}
			continue
		}
		if err != nil {
			return created, err
		}
		if ok {
			created = append(created, name)
		}
	}
	if len(created) > 0 && log != nil {
		log.Info("namespaces created", "names", created)
	}
	return created, nil
}

// ensure creates the namespace name unless it exists; true when created.
func ensure(ctx context.Context, store engine.Writer, rv *schemas.ResourceVersion, name string) (bool, error) {
	body := fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":%q}}`, rv.APIVersion(), rv.Resource.Kind, name)
	_, err := store.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv}, Body: []byte(body), Options: engine.WriteOptions{FieldManager: "specd"}})
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsAlreadyExists(err):
		return false, nil
	}
	if apierrors.IsInvalid(err) {
		return false, err
	}
	return false, fmt.Errorf("namespace: create %s: %w", name, err)
}

// adopt is Bootstrap, tried again with a growing pause while storage
// fails, until it succeeds or ctx ends: the elected replica adopts the
// namespaces before it runs the namespace controller.
func adopt(ctx context.Context, store engine.Writer, upkeep *engine.Upkeep, reg *schemas.Registry, log *slog.Logger) {
	for delay := time.Second; ; delay = min(2*delay, time.Minute) {
		_, err := Bootstrap(ctx, store, upkeep, reg, log)
		if err == nil || errors.Is(err, ErrNotServed) || ctx.Err() != nil {
			return
		}
		log.Warn("create the Namespaces of namespaces holding objects; trying again", "err", err, "in", delay)
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
	}
}
