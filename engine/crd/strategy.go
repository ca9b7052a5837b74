package crd

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/specd-io/specd/engine"
)

// Strategies are the engine.Options.Strategies of CRDs, as kube's CRD
// registry strategy and REST storage have them.
func Strategies() map[string]*engine.Strategy {
	return map[string]*engine.Strategy{
		Key: {
			PrepareCreate: prepareCreate,
			PrepareUpdate: prepareUpdate,
			Holds:         holds,
			MarkDeleting:  markDeleting,
		},
	}
}

// prepareCreate clears status, all but the storage version in
// storedVersions.
func prepareCreate(obj map[string]any) {
	setDefaults(obj)
	st := map[string]any{}
	if v := storageVersionOf(obj); v != "" {
		st["storedVersions"] = []any{v}
	}
	obj["status"] = st
}

// prepareUpdate keeps status on the main endpoint, and adds the storage
// version to storedVersions on every write.
func prepareUpdate(obj, old map[string]any, subresource string) {
	if subresource == "" {
		setDefaults(obj)
		if st, ok := old["status"]; ok {
			obj["status"] = st
		} else {
			delete(obj, "status")
		}
	}
	v := storageVersionOf(obj)
	if v == "" {
		return
	}
	st, _ := obj["status"].(map[string]any)
	if st == nil {
		st = map[string]any{}
		obj["status"] = st
	}
	stored, _ := st["storedVersions"].([]any)
	if !slices.Contains(stored, any(v)) {
		st["storedVersions"] = append(slices.Clone(stored), v)
	}
}

// setDefaults defaults spec as kube's v1 defaults do: the singular name
// and list kind from the kind, and conversion strategy None.
func setDefaults(obj map[string]any) {
	spec, _ := obj["spec"].(map[string]any)
	names, _ := spec["names"].(map[string]any)
	if kind, _ := names["kind"].(string); kind != "" {
		if s, _ := names["singular"].(string); s == "" {
			names["singular"] = strings.ToLower(kind)
		}
		if s, _ := names["listKind"].(string); s == "" {
			names["listKind"] = kind + "List"
		}
	}
	if spec != nil && spec["conversion"] == nil {
		spec["conversion"] = map[string]any{"strategy": "None"}
	}
}

func storageVersionOf(obj map[string]any) string {
	spec, _ := obj["spec"].(map[string]any)
	versions, _ := spec["versions"].([]any)
	for _, v := range versions {
		if m, ok := v.(map[string]any); ok && m["storage"] == true {
			s, _ := m["name"].(string)
			return s
		}
	}
	return ""
}

// holds: a CRD is not deleted at once, as kube's CRD storage marks it
// instead; once marked, the cleanup finalizer holds it.
func holds(stored []byte) bool {
	return !gjson.GetBytes(stored, "metadata.deletionTimestamp").Exists()
}

// markDeleting adds the cleanup finalizer and the Terminating condition
// kube's CRD storage sets on the first delete.
func markDeleting(stored []byte) ([]byte, error) {
	fs := gjson.GetBytes(stored, "metadata.finalizers").Array()
	has := slices.ContainsFunc(fs, func(f gjson.Result) bool { return f.Str == CleanupFinalizer })
	out := stored
	var err error
	if !has {
		if out, err = sjson.SetBytes(out, "metadata.finalizers.-1", CleanupFinalizer); err != nil {
			return nil, fmt.Errorf("crd: add finalizer: %w", err)
		}
	}
	var conds []Condition
	if raw := gjson.GetBytes(out, "status.conditions").Raw; raw != "" {
		if err := json.Unmarshal([]byte(raw), &conds); err != nil {
			return nil, fmt.Errorf("crd: decode conditions: %w", err)
		}
	}
	conds = setCondition(conds, deletionPending, time.Now())
	raw, err := json.Marshal(conds)
	if err != nil {
		return nil, err
	}
	return sjson.SetRawBytes(out, "status.conditions", raw)
}
