package crd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tidwall/gjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

func sameNames(a, b Names) bool {
	return a.Plural == b.Plural && a.Singular == b.Singular && a.Kind == b.Kind && listKind(a) == listKind(b) &&
		slices.Equal(a.ShortNames, b.ShortNames) && slices.Equal(a.Categories, b.Categories)
}

// name accepts o's names, or reports the conflict, as kube's naming
// controller does; Established is False (Installing) until the
// registry serves the names.
func (c *Controller) name(ctx context.Context, rv *schemas.ResourceVersion, o *object) error {
	c.mu.Lock()
	used := c.api.usedNames(o, c.written)
	names, cond := acceptNames(o, used)
	c.written.set(o.Spec.Group, o.Meta.Name, names)
	c.mu.Unlock()
	now := c.now()
	est := notAccepted
	if old := find(o.Status.Conditions, Established); old != nil {
		est = *old
	}
	if est.Status != "True" && cond.Status == "True" {
		est = installing
	}
	conds := setCondition(slices.Clone(o.Status.Conditions), cond, now)
	conds = setCondition(conds, est, now)
	return c.writeStatus(ctx, rv, o.Meta.Name, map[string]any{"acceptedNames": names, "conditions": conds})
}

// establish sets Established once the registry serves o's resource.
func (c *Controller) establish(ctx context.Context, rv *schemas.ResourceVersion, o *object) (time.Duration, error) {
	if !isTrue(o.Status.Conditions, NamesAccepted) || isTrue(o.Status.Conditions, Established) {
		return 0, nil
	}
	if servedVersion(c.api.cfg.Registry(), o) == nil {
		return EstablishPoll, nil
	}
	conds := setCondition(slices.Clone(o.Status.Conditions), established, c.now())
	return 0, c.writeStatus(ctx, rv, o.Meta.Name, map[string]any{"conditions": conds})
}

// servedVersion is the storage version of the resource o declares when
// the registry serves it from o, nil otherwise.
func servedVersion(reg *schemas.Registry, o *object) *schemas.ResourceVersion {
	n := o.Status.AcceptedNames.Plural
	if n == "" {
		n = o.Spec.Names.Plural
	}
	res := reg.Resource(n + "." + o.Spec.Group)
	if res == nil || !ownedBy(res, o.Meta.Name) {
		return nil
	}
	return res.Version(res.StorageVersion)
}

// ownedBy reports whether the CRD object named name declares res.
func ownedBy(res *schemas.Resource, name string) bool {
	return res.CRD == name && len(res.Versions) > 0 && res.Versions[0].File == source(name)
}

// writeStatus merges fields into the CRD's status.
func (c *Controller) writeStatus(ctx context.Context, rv *schemas.ResourceVersion, name string, fields map[string]any) error {
	patch, err := json.Marshal(map[string]any{"status": fields})
	if err != nil {
		return err
	}
	_, err = c.store.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "", Name: name, Subresource: "status"}, Type: engine.MergePatchType, Patch: patch, Options: engine.PatchOptions{WriteOptions: engine.WriteOptions{FieldManager: FieldManager}}})

	if err != nil {
		return fmt.Errorf("crd: write the status of %s: %w", name, err)
	}
	return nil
}

// finalize deletes the objects of a CRD being deleted, then removes the
// cleanup finalizer, which deletes the CRD, as kube's CRD finalizer does.
func (c *Controller) finalize(ctx context.Context, rv *schemas.ResourceVersion, o *object) error {
	conds := setCondition(slices.Clone(o.Status.Conditions), deletionProgress, c.now())
	if err := c.writeConditions(ctx, rv, o, conds); err != nil {
		return err
	}
	done, err := c.deleteObjects(ctx, o)
	if errors.Is(err, errAgain) {
		if check := c.deletionCheck(o.Meta.Name); check != nil {
			_ = c.writeConditions(ctx, rv, o, setCondition(conds, *check, c.now()))
		}
		return err
	}
	c.doneWaiting(o.Meta.Name)
	if err != nil {
		failed := condition(Terminating, true, "InstanceDeletionFailed", fmt.Sprintf("could not issue all deletes: %v", err))
		_ = c.writeConditions(ctx, rv, o, setCondition(conds, failed, c.now()))
		return err
	}
	if err := c.writeConditions(ctx, rv, o, setCondition(conds, done, c.now())); err != nil {
		return err
	}
	return c.removeFinalizer(ctx, rv, o)
}

// writeConditions writes conds unless o has them already: a write that
// changes nothing would only wake the controller again.
func (c *Controller) writeConditions(ctx context.Context, rv *schemas.ResourceVersion, o *object, conds []Condition) error {
	if slices.Equal(conds, o.Status.Conditions) {
		return nil
	}
	err := c.writeStatus(ctx, rv, o.Meta.Name, map[string]any{"conditions": conds})
	if err == nil {
		o.Status.Conditions = slices.Clone(conds)
	}
	return err
}

// deleteObjects deletes every object of o's resource and answers the
// Terminating condition once none remains; errAgain while some do
// (held by their finalizers).
func (c *Controller) deleteObjects(ctx context.Context, o *object) (Condition, error) {
	sv := servedVersion(c.api.cfg.Registry(), o)
	if sv == nil {
		if isTrue(o.Status.Conditions, Established) {
			return Condition{}, fmt.Errorf("%w: %s.%s is not served", errAgain, o.Spec.Names.Plural, o.Spec.Group)
		}
		return neverEstablished, nil
	}
	bg := metav1.DeletePropagationBackground
	if _, err := c.store.DeleteCollection(ctx, engine.Ref{Version: sv, Namespace: ""}, engine.ListRequest{}, engine.DeleteOptions{PropagationPolicy: bg}); err != nil {
		return Condition{}, err
	}
	list, err := c.store.List(ctx, engine.Ref{Version: sv, Namespace: ""}, engine.ListRequest{})
	if err != nil {
		return Condition{}, err
	}
	if n := gjson.GetBytes(list, "items.#").Int(); n > 0 {
		return Condition{}, fmt.Errorf("%w: %d %s remain", errAgain, n, sv.Resource.GroupResource())
	}
	return deletionDone, nil
}

// removeFinalizer removes the cleanup finalizer, keeping the others.
func (c *Controller) removeFinalizer(ctx context.Context, rv *schemas.ResourceVersion, o *object) error {
	kept := slices.DeleteFunc(slices.Clone(o.Meta.Finalizers), func(f string) bool { return f == CleanupFinalizer })
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"finalizers": kept}})
	if err != nil {
		return err
	}
	_, err = c.store.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: rv, Namespace: "", Name: o.Meta.Name}, Type: engine.MergePatchType, Patch: patch, Options: engine.PatchOptions{WriteOptions: engine.WriteOptions{FieldManager: FieldManager}}})

	if err != nil {
		return fmt.Errorf("crd: remove the finalizer of %s: %w", o.Meta.Name, err)
	}
	return nil
}
