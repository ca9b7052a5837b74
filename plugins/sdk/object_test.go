package sdk

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const fleetJSON = `{"apiVersion":"fleet.example.com/v1","kind":"Fleet",
 "metadata":{"name":"f","namespace":"ns","uid":"u1","generation":3,"labels":{"fleet.example.com/tier":"gold"}},
 "spec":{"replicas":2,"class":"cargo","ratio":0.5,"paused":true,"ports":[{"name":"a"}]}}`

func mustParse(t *testing.T, s string) *Object {
	t.Helper()
	o, err := ParseObject([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestObjectReads(t *testing.T) {
	o := mustParse(t, fleetJSON)
	tests := map[string]struct{ got, want any }{
		"String":           {o.String("spec.class"), "cargo"},
		"String of number": {o.String("spec.replicas"), ""},
		"Int":              {o.Int("spec.replicas"), int64(2)},
		"Int of string":    {o.Int("spec.class"), int64(0)},
		"Float":            {o.Float("spec.ratio"), 0.5},
		"Bool":             {o.Bool("spec.paused"), true},
		"array path":       {o.String("spec.ports.0.name"), "a"},
		"Exists":           {o.Exists("spec.paused"), true},
		"absent":           {o.Exists("spec.nothing"), false},
		"Raw":              {string(o.Raw("spec.ports")), `[{"name":"a"}]`},
		"dotted label":     {o.Label("fleet.example.com/tier"), "gold"},
		"Labels":           {o.Labels(), map[string]string{"fleet.example.com/tier": "gold"}},
		"Annotations":      {o.Annotations(), map[string]string(nil)},
		"Name":             {o.Name(), "f"},
		"Namespace":        {o.Namespace(), "ns"},
		"UID":              {o.UID(), "u1"},
		"Generation":       {o.Generation(), int64(3)},
		"APIVersion":       {o.APIVersion(), "fleet.example.com/v1"},
		"Kind":             {o.Kind(), "Fleet"},
		"IsDeleting":       {o.IsDeleting(), false},
		"Path":             {Path("metadata", "labels", "a.b/c*d"), `metadata.labels.a\.b/c\*d`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestObjectWrites(t *testing.T) {
	o := mustParse(t, fleetJSON)
	steps := []error{
		o.Set("spec.replicas", 5),
		o.Set("status.readyReplicas", 1),
		o.SetLabel("fleet.example.com/fleet", "f"),
		o.SetAnnotation("note", "x"),
		o.SetRaw("spec.extra", []byte(`{"k":[1,2]}`)),
		o.Delete("spec.ratio"),
		o.Delete("spec.absent"),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	if err := o.SetRaw("spec.bad", []byte(`{`)); err == nil {
		t.Error("SetRaw of bad JSON: no error")
	}
	var got map[string]any
	if err := o.Decode("", &got); err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal([]byte(`{"apiVersion":"fleet.example.com/v1","kind":"Fleet",
 "metadata":{"name":"f","namespace":"ns","uid":"u1","generation":3,
   "labels":{"fleet.example.com/tier":"gold","fleet.example.com/fleet":"f"},"annotations":{"note":"x"}},
 "spec":{"replicas":5,"class":"cargo","paused":true,"ports":[{"name":"a"}],"extra":{"k":[1,2]}},
 "status":{"readyReplicas":1}}`), &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("object (-want +got):\n%s", diff)
	}
	odd := `a.b/c:d=e*f?g|h#i@j!k%l<m>n\o`
	if err := o.SetLabel(odd, "v"); err != nil {
		t.Fatal(err)
	}
	if o.Label(odd) != "v" || o.Labels()[odd] != "v" {
		t.Errorf("label %q: got %q, labels %v", odd, o.Label(odd), o.Labels())
	}
	cp := o.DeepCopy()
	_ = cp.Set("spec.replicas", 9)
	if o.Int("spec.replicas") != 5 {
		t.Error("DeepCopy shares the buffer")
	}
}

func TestParseObject(t *testing.T) {
	for _, bad := range []string{``, `[]`, `"s"`, `{"a":`, `null`} {
		if _, err := ParseObject([]byte(bad)); err == nil {
			t.Errorf("ParseObject(%q): no error", bad)
		}
	}
	o := NewObject("v1", "Thing", "ns", "n")
	if o.Name() != "n" || o.Namespace() != "ns" || o.Kind() != "Thing" || o.APIVersion() != "v1" {
		t.Errorf("NewObject = %s", o.JSON())
	}
	if o := NewObject("v1", "Node", "", "n"); o.Exists("metadata.namespace") {
		t.Errorf("cluster-scoped NewObject = %s", o.JSON())
	}
}

func TestOwnerReferences(t *testing.T) {
	fleet := mustParse(t, fleetJSON)
	other := mustParse(t, `{"apiVersion":"v1","kind":"Other","metadata":{"name":"o","uid":"u2"}}`)
	ship := NewObject("fleet.example.com/v1", "Ship", "ns", "f-0")
	if ship.IsControlledBy(fleet) {
		t.Error("a new object is controlled")
	}
	if err := ship.SetControllerReference(fleet); err != nil {
		t.Fatal(err)
	}
	if err := ship.SetControllerReference(fleet); err != nil {
		t.Fatalf("setting the same controller again: %v", err)
	}
	if err := ship.SetControllerReference(other); err == nil {
		t.Error("a second controller: no error")
	}
	yes := true
	want := []OwnerReference{{APIVersion: "fleet.example.com/v1", Kind: "Fleet", Name: "f", UID: "u1", Controller: &yes, BlockOwnerDeletion: &yes}}
	if diff := cmp.Diff(want, ship.OwnerReferences()); diff != "" {
		t.Errorf("ownerReferences (-want +got):\n%s", diff)
	}
	if !ship.IsControlledBy(fleet) || ship.IsControlledBy(other) {
		t.Error("IsControlledBy")
	}
	if err := ship.SetControllerReference(NewObject("v1", "X", "", "x")); err == nil {
		t.Error("an owner without uid: no error")
	}
}
