package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/specd-io/specd/engine"
)

// fieldManager names the controllers' writes in managedFields.
const fieldManager = "specd-controller"

func hasFinalizer(obj []byte, finalizer string) bool {
	return slices.Contains(finalizers(obj), finalizer)
}

func finalizers(obj []byte) []string {
	var out []string
	for _, f := range gjson.GetBytes(obj, "metadata.finalizers").Array() {
		out = append(out, f.Str)
	}
	return out
}

// setFinalizers writes the object's finalizers if it is still at the
// resourceVersion of obj (a 409 otherwise: the key is retried, on the
// newer object), and returns the object written.
func (c *Controller) setFinalizers(ctx context.Context, key Key, obj []byte, list []string) ([]byte, error) {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"resourceVersion": gjson.GetBytes(obj, "metadata.resourceVersion").Str,
		"finalizers":      list,
	}})
	if err != nil {
		return nil, err
	}
	res, err := c.cfg.Store.Patch(ctx, engine.PatchRequest{Ref: engine.Ref{Version: c.rv, Namespace: key.Namespace, Name: key.Name}, Type: engine.MergePatchType, Patch: patch, Options: engine.PatchOptions{WriteOptions: engine.WriteOptions{FieldManager: fieldManager}}})

	if err != nil {
		return nil, err
	}
	return res.Object, nil
}

// addFinalizer adds the plugin's finalizer to an object that lacks it.
func (c *Controller) addFinalizer(ctx context.Context, key Key, obj []byte, finalizer string) ([]byte, error) {
	out, err := c.setFinalizers(ctx, key, obj, append(finalizers(obj), finalizer))
	if err != nil {
		return nil, fmt.Errorf("add finalizer %s: %w", finalizer, err)
	}
	return out, nil
}

// removeFinalizer removes the plugin's finalizer: its cleanup is done.
func (c *Controller) removeFinalizer(ctx context.Context, key Key, obj []byte, finalizer string) error {
	list := slices.DeleteFunc(finalizers(obj), func(f string) bool { return f == finalizer })
	if list == nil {
		list = []string{}
	}
	if _, err := c.setFinalizers(ctx, key, obj, list); err != nil {
		return fmt.Errorf("remove finalizer %s: %w", finalizer, err)
	}
	return nil
}

// writeStatus replaces the object's status with the plugin's, through the
// status subresource when the resource has one, with observedGeneration
// set to the generation the plugin saw. It writes nothing when the status
// is already that, and returns the object as it is now.
func (c *Controller) writeStatus(ctx context.Context, key Key, obj, status []byte) ([]byte, error) {
	st, err := c.prepareStatus(obj, status)
	if err != nil {
		return nil, fmt.Errorf("status from plugin %q: %w", c.plugin, err)
	}
	if sameJSON([]byte(gjson.GetBytes(obj, "status").Raw), st) {
		return obj, nil
	}
	// Replacing the whole status, without a resourceVersion: the status
	// describes the generation it names, whatever was written meanwhile.
	patch, err := json.Marshal([]map[string]any{{"op": "add", "path": "/status", "value": json.RawMessage(st)}})
	if err != nil {
		return nil, err
	}
	ref := engine.Ref{Version: c.rv, Namespace: key.Namespace, Name: key.Name}
	if c.rv.StatusSubresource {
		ref.Subresource = "status"
	}
	opts := engine.PatchOptions{WriteOptions: engine.WriteOptions{FieldManager: fieldManager}}
	res, err := c.cfg.Store.Patch(ctx, engine.PatchRequest{Ref: ref, Type: engine.JSONPatchType, Patch: patch, Options: opts})
	if err != nil {
		return nil, fmt.Errorf("write status: %w", err)
	}
	return res.Object, nil
}

// prepareStatus sets observedGeneration on the plugin's status and on its
// conditions, and keeps each condition's lastTransitionTime while its
// status stays the same, as metav1 conditions are kept (a condition
// without one gets the current time when it changes).
func (c *Controller) prepareStatus(obj, status []byte) ([]byte, error) {
	if !gjson.ValidBytes(status) || !gjson.ParseBytes(status).IsObject() {
		return nil, fmt.Errorf("not a JSON object: %.40q", status)
	}
	gen := gjson.GetBytes(obj, "metadata.generation").Int()
	st, err := sjson.SetBytes(status, "observedGeneration", gen)
	if err != nil {
		return nil, err
	}
	old := map[string]gjson.Result{}
	for _, cond := range gjson.GetBytes(obj, "status.conditions").Array() {
		old[cond.Get("type").Str] = cond
	}
	now := c.cfg.Now().UTC().Truncate(time.Second).Format(time.RFC3339)
	for i, cond := range gjson.GetBytes(st, "conditions").Array() {
		if !cond.IsObject() {
			continue
		}
		at := fmt.Sprintf("conditions.%d.", i)
		if !cond.Get("observedGeneration").Exists() {
			if st, err = sjson.SetBytes(st, at+"observedGeneration", gen); err != nil {
				return nil, err
			}
		}
		prev, seen := old[cond.Get("type").Str]
		t := cond.Get("lastTransitionTime").Str
		switch {
		case seen && prev.Get("status").Str == cond.Get("status").Str && prev.Get("lastTransitionTime").Str != "":
			t = prev.Get("lastTransitionTime").Str
		case t == "":
			t = now
		}
		if st, err = sjson.SetBytes(st, at+"lastTransitionTime", t); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
