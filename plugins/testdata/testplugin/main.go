// Command testplugin is the plugin the host's tests run. What it does to a
// Widget depends on the Widget's spec.action, so that one binary can crash,
// hang, fail or call back on demand.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/specd-io/specd/plugins/sdk"
)

const group = "test.specd.io"

func main() {
	sdk.Serve(
		sdk.Defaulter(group, "Widget", defaultWidget),
		sdk.Validator(group, "Widget", validateWidget),
		sdk.Reconciler(group, "Widget", reconcileWidget).WithFinalizer("test.specd.io/cleanup"),
	)
}

// act does what spec.action asks before the hook does its work; the
// validator also answers "whoami" with the request's user as a field
// error.
func act(obj *sdk.Object) error {
	switch obj.String("spec.action") {
	case "crash":
		go panic("testplugin: crashing on purpose")
		time.Sleep(time.Hour)
	case "hang":
		time.Sleep(time.Hour)
	case "fail":
		return errors.New("asked to fail")
	case "panic":
		panic("asked to panic")
	case "log":
		fmt.Fprintln(os.Stderr, "a plain line from testplugin")
		sdk.Logger.Warn("a structured line from testplugin", "widget", obj.Name())
	}
	return nil
}

func defaultWidget(_ context.Context, req *sdk.AdmissionRequest) error {
	if err := act(req.Object); err != nil {
		return err
	}
	if req.Object.String("spec.color") == "" {
		if err := req.Object.Set("spec.color", "blue"); err != nil {
			return err
		}
	}
	return req.Object.Set("spec.pid", os.Getpid())
}

func validateWidget(_ context.Context, req *sdk.AdmissionRequest) (sdk.FieldErrors, error) {
	if err := act(req.Object); err != nil {
		return nil, err
	}
	var errs sdk.FieldErrors
	if c := req.Object.String("spec.color"); c != "" && c != "blue" && c != "red" {
		errs = append(errs, sdk.NotSupported("spec.color", c, "blue", "red"))
	}
	if req.Operation == sdk.Update && req.OldObject.String("spec.serial") != req.Object.String("spec.serial") {
		errs = append(errs, sdk.Immutable("spec.serial", req.Object.String("spec.serial")))
	}
	if req.Object.Int("spec.size") < 0 {
		errs = append(errs, sdk.Invalid("spec.size", req.Object.Int("spec.size"), "must be at least 0"))
	}
	if req.Object.String("spec.action") == "whoami" {
		u := req.UserInfo
		errs = append(errs, sdk.Forbidden("metadata", fmt.Sprintf("user=%s uid=%s groups=%v extra=%v", u.Username, u.UID, u.Groups, u.Extra)))
	}
	return errs, nil
}

var things = sdk.Resource{Group: group, Version: "v1", Resource: "things"}

// reconcileWidget goes through every Client call and reports what it saw
// in the status; with spec.action "events" it records an event instead.
func reconcileWidget(ctx context.Context, req *sdk.ReconcileRequest) (sdk.Result, error) {
	if err := act(req.Object); err != nil {
		return sdk.Result{}, err
	}
	w, c := req.Object, req.Client
	st := map[string]any{"pid": os.Getpid()}
	if w.IsDeleting() {
		return sdk.Result{FinalizerDone: true}, nil
	}
	if w.String("spec.action") == "events" {
		req.Events.Normalf("Seen", "seen by testplugin %d", w.Generation())
		return sdk.Result{}, nil
	}
	if w.String("spec.action") != "callbacks" {
		st["conditions"] = sdk.SetCondition(w.Conditions(), sdk.Condition{Type: "Ready", Status: "True", Reason: "Seen", ObservedGeneration: w.Generation()})
		return sdk.Result{Status: st, RequeueAfter: 1500 * time.Millisecond}, nil
	}
	thing := sdk.NewObject(group+"/v1", "Thing", w.Namespace(), w.Name()+"-thing")
	if err := thing.SetControllerReference(w); err != nil {
		return sdk.Result{}, err
	}
	created, err := c.Create(ctx, things, thing)
	if err != nil {
		return sdk.Result{}, fmt.Errorf("create: %w", err)
	}
	st["created"] = created.Name()
	_, err = c.Create(ctx, things, thing)
	st["createAgainAlreadyExists"] = sdk.IsAlreadyExists(err)
	got, err := c.Get(ctx, things, w.Namespace(), created.Name())
	if err != nil {
		return sdk.Result{}, fmt.Errorf("get: %w", err)
	}
	st["gotControlled"] = got.IsControlledBy(w)
	_, err = c.Get(ctx, things, w.Namespace(), "missing")
	st["missingNotFound"], st["missingCode"] = sdk.IsNotFound(err), sdk.CodeOf(err)
	list, err := c.List(ctx, things, w.Namespace(), "app=test")
	if err != nil {
		return sdk.Result{}, fmt.Errorf("list: %w", err)
	}
	st["listed"] = len(list)
	if err := got.Set("spec.size", 3); err != nil {
		return sdk.Result{}, err
	}
	updated, err := c.Update(ctx, things, got)
	if err != nil {
		return sdk.Result{}, fmt.Errorf("update: %w", err)
	}
	_, err = c.Update(ctx, things, got)
	st["staleUpdateConflict"] = sdk.IsConflict(err)
	if _, err := c.UpdateStatus(ctx, things, updated); err != nil {
		return sdk.Result{}, fmt.Errorf("update status: %w", err)
	}
	if _, err := c.Patch(ctx, things, w.Namespace(), got.Name(), sdk.MergePatch, []byte(`{"spec":{"size":4}}`), "status"); err != nil {
		return sdk.Result{}, fmt.Errorf("patch: %w", err)
	}
	if err := c.Delete(ctx, things, w.Namespace(), got.Name(), sdk.PropagationPolicy("Foreground")); err != nil {
		return sdk.Result{}, fmt.Errorf("delete: %w", err)
	}
	return sdk.Result{Status: st, Requeue: true}, nil
}
