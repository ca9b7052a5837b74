package namespace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

// ContentRemainingError is a pass that deleted all it could while objects
// remain, held by finalizers: the namespace is looked at again later.
type ContentRemainingError struct{ Count int }

func (e *ContentRemainingError) Error() string {
	return fmt.Sprintf("namespace: %d objects remain, held by finalizers", e.Count)
}

// finalizeAttempts bounds the retries of a finalize that races with
// other writes to the namespace.
const finalizeAttempts = 5

// sync is one pass over namespace name, as kube's deleter makes it: a
// namespace marked for deletion is emptied, its conditions say what
// remains, and once nothing does the kubernetes finalizer is removed.
func (c *Controller) sync(ctx context.Context, name string) error {
	reg := c.cfg.Registry()
	rv := Resource(reg)
	if rv == nil {
		return ErrNotServed
	}
	obj, err := c.cfg.Store.Get(ctx, engine.Ref{Version: rv, Name: name})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("namespace: read %s: %w", name, err)
	}
	if !gjson.GetBytes(obj, "metadata.deletionTimestamp").Exists() || !holds(obj) {
		return nil // not deleting, or finalized already
	}
	p := c.deleteContent(ctx, reg, name)
	if err := c.writeStatus(ctx, rv, name, obj, p); err != nil {
		c.log.Warn("could not write the namespace's conditions", "namespace", name, "err", err)
	}
	if err := errors.Join(append([]error{p.discovery}, p.deleteErrs...)...); err != nil {
		return err
	}
	if n := sum(p.remaining); n > 0 {
		return &ContentRemainingError{Count: n}
	}
	return c.finalize(ctx, rv, name)
}

// deleteContent deletes the objects of every namespaced resource reg
// serves in namespace, and counts what remains.
func (c *Controller) deleteContent(ctx context.Context, reg *schemas.Registry, namespace string) *pass {
	p := &pass{remaining: map[string]int{}, finalizers: map[string]int{}}
	var unlisted []string
	for _, r := range reg.Resources() {
		if !r.Namespaced() || !r.Served() || sharesServedStorage(r) {
			continue
		}
		sv := r.Version(r.StorageVersion)
		if sv == nil {
			unlisted = append(unlisted, r.GroupResource())
			continue
		}
		if err := c.deleteResource(ctx, sv, namespace, p); err != nil {
			p.deleteErrs = append(p.deleteErrs, err)
		}
	}
	if len(unlisted) > 0 {
		p.discovery = fmt.Errorf("Discovery failed for some groups, %d failing: no storage version for %v", len(unlisted), unlisted)
	}
	return p
}

// deleteResource deletes sv's objects in namespace in the background, as
// kube's deleter does (dependents go through the garbage collector), then
// counts those that remain, and the finalizers that hold them.
func (c *Controller) deleteResource(ctx context.Context, sv *schemas.ResourceVersion, namespace string, p *pass) error {
	r := sv.Resource
	bg := metav1.DeletePropagationBackground
	if _, err := c.cfg.Store.DeleteCollection(ctx, engine.Ref{Version: sv, Namespace: namespace}, engine.ListRequest{}, engine.DeleteOptions{PropagationPolicy: bg}); err != nil {
		return fmt.Errorf("delete %s: %w", r.GroupResource(), err)
	}
	n, held := 0, 0
	if _, err := c.cfg.Upkeep.ScanNamespace(ctx, r, namespace, func(o engine.StoredObject) {
		n++
		if len(o.Finalizers) > 0 {
			held++
		}
		for _, f := range o.Finalizers {
			p.finalizers[f]++
		}
	}); err != nil {
		return fmt.Errorf("list %s: %w", r.GroupResource(), err)
	}
	if n == 0 {
		return nil
	}
	// kube names a resource so, with a trailing dot in the core group.
	p.remaining[r.Plural+"."+r.Group] = n
	if held == 0 {
		gvr := schema.GroupVersionResource{Group: r.Group, Version: sv.Version, Resource: r.Plural}
		return fmt.Errorf("unexpected items still remain in namespace: %s for gvr: %v", namespace, gvr)
	}
	return nil
}

// writeStatus writes the conditions of pass p (and the Terminating phase,
// should the namespace not have it) when they change anything.
func (c *Controller) writeStatus(ctx context.Context, rv *schemas.ResourceVersion, name string, obj []byte, p *pass) error {
	var current []corev1.NamespaceCondition
	if raw := gjson.GetBytes(obj, "status.conditions").Raw; raw != "" {
		if err := json.Unmarshal([]byte(raw), &current); err != nil {
			return fmt.Errorf("decode conditions: %w", err)
		}
	}
	conditions, changed := updateConditions(current, p.conditions(), c.cfg.Now())
	terminating := gjson.GetBytes(obj, "status.phase").Str == string(corev1.NamespaceTerminating)
	if !changed && terminating {
		return nil
	}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"phase": corev1.NamespaceTerminating, "conditions": conditions}})
	if err != nil {
		return err
	}
	_, err = c.cfg.Store.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Name: name, Subresource: "status"}, Type: engine.MergePatchType, Patch: patch, Options: engine.PatchOptions{WriteOptions: engine.WriteOptions{FieldManager: FieldManager}}})

	return err
}

// finalize removes the kubernetes finalizer from spec.finalizers through
// the finalize subresource; the namespace is deleted when that leaves it
// held by nothing.
func (c *Controller) finalize(ctx context.Context, rv *schemas.ResourceVersion, name string) error {
	for attempt := 1; ; attempt++ {
		obj, err := c.cfg.Store.Get(ctx, engine.Ref{Version: rv, Name: name})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("namespace: read %s: %w", name, err)
		}
		var fs []string
		for _, f := range gjson.GetBytes(obj, "spec.finalizers").Array() {
			fs = append(fs, f.Str)
		}
		kept := slices.DeleteFunc(slices.Clone(fs), func(f string) bool { return f == string(corev1.FinalizerKubernetes) })
		if len(kept) == len(fs) {
			return nil
		}
		body, err := sjson.SetBytes(obj, "spec.finalizers", kept)
		if err != nil {
			return fmt.Errorf("namespace: finalize %s: %w", name, err)
		}
		_, err = c.cfg.Store.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Name: name, Subresource: FinalizeSubresource}, Body: body, Options: engine.WriteOptions{FieldManager: FieldManager}})
		switch {
		case err == nil, apierrors.IsNotFound(err):
			return nil
		case apierrors.IsConflict(err) && attempt < finalizeAttempts:
			continue
		}
		return fmt.Errorf("namespace: finalize %s: %w", name, err)
	}
}

func sum(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// sharesServedStorage reports whether r's objects are another served
// resource's (events.k8s.io events are the core events), which deletes
// them already.
func sharesServedStorage(r *schemas.Resource) bool {
	return r.StoredWith != nil && r.StoredWith.Served()
}
