package crd

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

func crdMap(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

const twoVersions = `{"metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","names":{"plural":"widgets","kind":"Widget"},
	"versions":[{"name":"v1","storage":false},{"name":"v2","storage":true}]},"status":{"conditions":[{"type":"Established","status":"True"}]}}`

func TestPrepareCreateClearsStatusAndDefaults(t *testing.T) {
	obj := crdMap(t, twoVersions)
	prepareCreate(obj)
	want := map[string]any{"storedVersions": []any{"v2"}}
	if !reflect.DeepEqual(obj["status"], want) {
		t.Errorf("status %v, want %v", obj["status"], want)
	}
	names := obj["spec"].(map[string]any)["names"].(map[string]any)
	if names["singular"] != "widget" || names["listKind"] != "WidgetList" {
		t.Errorf("names %v: want kube's defaults", names)
	}
}

func TestPrepareUpdateKeepsStatusAndAddsStoredVersion(t *testing.T) {
	old := crdMap(t, `{"status":{"storedVersions":["v1"],"acceptedNames":{"plural":"widgets"}}}`)
	obj := crdMap(t, twoVersions)
	prepareUpdate(obj, old, "")
	st := obj["status"].(map[string]any)
	if !reflect.DeepEqual(st["storedVersions"], []any{"v1", "v2"}) || st["acceptedNames"] == nil || st["conditions"] != nil {
		t.Errorf("status %v: want the stored one with v2 added", st)
	}
}

func TestMarkDeleting(t *testing.T) {
	stored := []byte(`{"metadata":{"name":"w","deletionTimestamp":"2026-01-01T00:00:00Z","finalizers":["other"]},"status":{"conditions":[{"type":"Established","status":"True"}]}}`)
	if !holds([]byte(`{"metadata":{"name":"w"}}`)) || holds(stored) {
		t.Fatal("holds: want a CRD held until it is marked, then held by its finalizer only")
	}
	out, err := markDeleting(stored)
	if err != nil {
		t.Fatal(err)
	}
	if got := gjson.GetBytes(out, "metadata.finalizers").Raw; got != `["other","customresourcecleanup.apiextensions.k8s.io"]` {
		t.Errorf("finalizers %s", got)
	}
	c := gjson.GetBytes(out, `status.conditions.#(type=="Terminating")`)
	if c.Get("status").Str != "True" || c.Get("reason").Str != "InstanceDeletionPending" ||
		c.Get("message").Str != "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon" {
		t.Errorf("Terminating condition %s", c.Raw)
	}
	if again, _ := markDeleting(out); gjson.GetBytes(again, "metadata.finalizers.#").Int() != 2 {
		t.Error("a second delete added the finalizer again")
	}
}

func TestSetConditionKeepsTransitionTime(t *testing.T) {
	t0, t1 := time.Unix(1000, 0), time.Unix(2000, 0)
	conds := setCondition(nil, installing, t0)
	conds = setCondition(conds, condition(Established, false, "Other", "m"), t1)
	if !conds[0].LastTransitionTime.Time.Equal(t0) || conds[0].Reason != "Other" {
		t.Errorf("same status: %+v, want the time of the first", conds[0])
	}
	conds = setCondition(conds, established, t1)
	if !conds[0].LastTransitionTime.Time.Equal(t1) || len(conds) != 1 {
		t.Errorf("new status: %+v, want the new time", conds)
	}
}
