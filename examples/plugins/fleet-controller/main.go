// Command fleet-controller is a specd plugin that reconciles the Fleets of
// fleet.example.com. A Fleet keeps spec.replicas Ships named <fleet>-<i>
// in its namespace, each controlled by the Fleet (an ownerReference) and
// labelled with its name; the plugin creates the missing ones, deletes the
// extra ones, gives them the fleet's spec.class, and reports
// status.readyReplicas with a Ready condition. It records an Event on the
// Fleet each time it scales (Normal "Scaled") or fails to (Warning
// "FailedScale"), which `kubectl describe fleet` shows. Through the finalizer
// fleet.example.com/ships it deletes a Fleet's Ships before the Fleet goes.
// The schema binds it with
//
//	x-specd-hooks:
//	  reconcile: fleet-controller
//
// and `make plugins` builds it into bin/plugins. docs/plugins.md is the
// guide.
package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/specd-io/specd/plugins/sdk"
)

const (
	group      = "fleet.example.com"
	fleetLabel = "fleet.example.com/fleet"
	finalizer  = "fleet.example.com/ships"
)

var ships = sdk.Resource{Group: group, Version: "v1", Resource: "ships"}

func main() {
	sdk.Serve(sdk.Reconciler(group, "Fleet", reconcile).WithFinalizer(finalizer))
}

// fleetStatus is what the plugin writes to a Fleet's status (specd adds
// observedGeneration).
type fleetStatus struct {
	ReadyReplicas int             `json:"readyReplicas"`
	Conditions    []sdk.Condition `json:"conditions"`
}

// reconcile sees the Fleet as it is now and makes its ships match it.
func reconcile(ctx context.Context, req *sdk.ReconcileRequest) (sdk.Result, error) {
	fleet, c := req.Object, req.Client
	owned, err := ownedShips(ctx, c, fleet)
	if err != nil {
		return sdk.Result{}, err
	}
	if fleet.IsDeleting() {
		for _, ship := range owned {
			if err := c.Delete(ctx, ships, ship.Namespace(), ship.Name()); err != nil && !sdk.IsNotFound(err) {
				return sdk.Result{}, fmt.Errorf("delete ship %s: %w", ship.Name(), err)
			}
		}
		return sdk.Result{FinalizerDone: true}, nil
	}

	want := int(fleet.Int("spec.replicas"))
	ready, changed, err := scale(ctx, c, fleet, owned, want)
	recordScale(req.Events, ready, changed, err)
	cond := sdk.Condition{Type: "Ready", Status: "True", Reason: "Converged",
		Message: fmt.Sprintf("%d of %d ships", ready, want), ObservedGeneration: fleet.Generation()}
	if ready != want || err != nil {
		cond.Status, cond.Reason = "False", "Scaling"
	}
	if err != nil {
		cond.Message += ": " + err.Error()
		sdk.Logger.Warn("fleet not converged", "fleet", fleet.Namespace()+"/"+fleet.Name(), "error", err)
	}
	status := fleetStatus{ReadyReplicas: ready, Conditions: sdk.SetCondition(fleet.Conditions(), cond)}
	// On an error, report what there is and try again later, with backoff.
	return sdk.Result{Status: status, Requeue: err != nil}, nil
}

// recordScale tells of a scaling in the fleet's events: a repeat of the
// same news raises the count of the Event that told it before.
func recordScale(events *sdk.Events, ready int, changed bool, err error) {
	if err != nil {
		events.Warning("FailedScale", err.Error())
		return
	}
	if changed {
		events.Normalf("Scaled", "Scaled to %d %s", ready, plural(ready, "ship", "ships"))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ownedShips are the fleet's ships: labelled with its name and controlled
// by it (not by an older fleet of the same name).
func ownedShips(ctx context.Context, c sdk.Client, fleet *sdk.Object) ([]*sdk.Object, error) {
	labelled, err := c.List(ctx, ships, fleet.Namespace(), fleetLabel+"="+fleet.Name())
	if err != nil {
		return nil, fmt.Errorf("list ships: %w", err)
	}
	var owned []*sdk.Object
	for _, ship := range labelled {
		if ship.IsControlledBy(fleet) {
			owned = append(owned, ship)
		}
	}
	return owned, nil
}

// scale creates, updates and deletes ships until the fleet has want of
// them, and returns how many it has and whether it created or deleted
// any.
func scale(ctx context.Context, c sdk.Client, fleet *sdk.Object, owned []*sdk.Object, want int) (int, bool, error) {
	extra := map[string]*sdk.Object{}
	for _, ship := range owned {
		extra[ship.Name()] = ship
	}
	class := fleet.String("spec.class")
	ready, changed := 0, false
	var errs []error
	for i := range want {
		name := fmt.Sprintf("%s-%d", fleet.Name(), i)
		ship, exists := extra[name]
		delete(extra, name)
		switch {
		case !exists:
			created, err := createShip(ctx, c, fleet, name, class)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			changed = changed || created
		case class != "" && ship.String("spec.class") != class:
			patch := fmt.Appendf(nil, `{"spec":{"class":%q}}`, class)
			if _, err := c.Patch(ctx, ships, ship.Namespace(), name, sdk.MergePatch, patch); err != nil {
				errs = append(errs, fmt.Errorf("patch ship %s: %w", name, err))
			}
		}
		ready++
	}
	for name, ship := range extra {
		err := c.Delete(ctx, ships, ship.Namespace(), name)
		if err != nil && !sdk.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete ship %s: %w", name, err))
		}
		changed = changed || err == nil
	}
	return ready, changed, errors.Join(errs...)
}

// createShip creates the ship, or finds it made by an earlier pass; it
// reports whether it created it.
func createShip(ctx context.Context, c sdk.Client, fleet *sdk.Object, name, class string) (bool, error) {
	spec := map[string]string{}
	if class != "" {
		spec["class"] = class // else ship-policy defaults it
	}
	ship := sdk.NewObject(fleet.APIVersion(), "Ship", fleet.Namespace(), name)
	if err := errors.Join(
		ship.Set("spec", spec),
		ship.SetLabel(fleetLabel, fleet.Name()),
		ship.SetControllerReference(fleet),
	); err != nil {
		return false, err
	}
	_, err := c.Create(ctx, ships, ship)
	if sdk.IsAlreadyExists(err) {
		// Created by an earlier pass that the list did not show yet, or
		// someone else's ship.
		existing, getErr := c.Get(ctx, ships, fleet.Namespace(), name)
		if getErr == nil && existing.IsControlledBy(fleet) {
			return false, nil
		}
		return false, fmt.Errorf("ship %s exists and is not this fleet's", name)
	}
	if err != nil {
		return false, fmt.Errorf("create ship %s: %w", name, err)
	}
	return true, nil
}
