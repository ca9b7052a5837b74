package plugins

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/specd-io/specd/plugins/hook"
)

// LateCallbacks are Callbacks bound after the Host is made: the one
// deferral in specd's construction. Its values form a cycle that
// constructor arguments alone cannot close: the Host serves Callbacks to
// every plugin process it starts, the Callbacks are the controllers'
// Client over the engine's Store, and the Store calls the Host to admit
// each write (a reconciler's write through the Callbacks goes through the
// Store and back to the Host's admission plugins). So the Host is given
// LateCallbacks, and Bind gives them the Client once the Store exists.
// Until then every call fails with "specd is not serving yet".
type LateCallbacks struct {
	bound atomic.Pointer[hook.Callbacks]
}

var _ hook.Callbacks = (*LateCallbacks)(nil)

// errNotServing answers a reconciler's call before Bind.
var errNotServing = errors.New("specd is not serving yet")

// Bind makes cb the Callbacks; call it once, as soon as cb can be made.
func (l *LateCallbacks) Bind(cb hook.Callbacks) { l.bound.Store(&cb) }

// through calls fn on the bound Callbacks.
func through[T any](l *LateCallbacks, fn func(hook.Callbacks) (T, error)) (T, error) {
	cb := l.bound.Load()
	if cb == nil {
		var none T
		return none, errNotServing
	}
	return fn(*cb)
}

func (l *LateCallbacks) Get(ctx context.Context, r hook.ResourceRef, namespace, name string) ([]byte, error) {
	return through(l, func(cb hook.Callbacks) ([]byte, error) { return cb.Get(ctx, r, namespace, name) })
}

func (l *LateCallbacks) List(ctx context.Context, r hook.ResourceRef, namespace, labelSelector string) ([]byte, error) {
	return through(l, func(cb hook.Callbacks) ([]byte, error) { return cb.List(ctx, r, namespace, labelSelector) })
}

func (l *LateCallbacks) Create(ctx context.Context, r hook.ResourceRef, namespace string, obj []byte) ([]byte, error) {
	return through(l, func(cb hook.Callbacks) ([]byte, error) { return cb.Create(ctx, r, namespace, obj) })
}

func (l *LateCallbacks) Update(ctx context.Context, r hook.ResourceRef, namespace, name string, obj []byte) ([]byte, error) {
	return through(l, func(cb hook.Callbacks) ([]byte, error) { return cb.Update(ctx, r, namespace, name, obj) })
}

func (l *LateCallbacks) UpdateStatus(ctx context.Context, r hook.ResourceRef, namespace, name string, obj []byte) ([]byte, error) {
	return through(l, func(cb hook.Callbacks) ([]byte, error) { return cb.UpdateStatus(ctx, r, namespace, name, obj) })
}

func (l *LateCallbacks) Patch(ctx context.Context, r hook.ResourceRef, namespace, name, patchType string, patch []byte, subresource string) ([]byte, error) {
	return through(l, func(cb hook.Callbacks) ([]byte, error) {
		return cb.Patch(ctx, r, namespace, name, patchType, patch, subresource)
	})
}

func (l *LateCallbacks) Delete(ctx context.Context, r hook.ResourceRef, namespace, name, propagationPolicy string) error {
	_, err := through(l, func(cb hook.Callbacks) (struct{}, error) {
		return struct{}{}, cb.Delete(ctx, r, namespace, name, propagationPolicy)
	})
	return err
}
