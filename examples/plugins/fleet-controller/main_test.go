package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/specd-io/specd/plugins/sdk"
)

// fakeShips is an sdk.Client over an in-memory set of ships: enough to test
// the reconciler without specd.
type fakeShips struct{ byName map[string]*sdk.Object }

func (f *fakeShips) names() []string {
	var names []string
	for name := range f.byName {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

func (f *fakeShips) Get(_ context.Context, _ sdk.Resource, _, name string) (*sdk.Object, error) {
	if s, ok := f.byName[name]; ok {
		return s, nil
	}
	return nil, &sdk.StatusError{Code: 404, Reason: "NotFound"}
}

func (f *fakeShips) List(_ context.Context, _ sdk.Resource, _, selector string) ([]*sdk.Object, error) {
	var out []*sdk.Object
	for _, name := range f.names() {
		if s := f.byName[name]; fleetLabel+"="+s.Label(fleetLabel) == selector {
			out = append(out, s)
		}
	}
	return out, nil
}

func (f *fakeShips) Create(_ context.Context, _ sdk.Resource, obj *sdk.Object) (*sdk.Object, error) {
	if _, ok := f.byName[obj.Name()]; ok {
		return nil, &sdk.StatusError{Code: 409, Reason: "AlreadyExists"}
	}
	f.byName[obj.Name()] = obj
	return obj, nil
}

func (f *fakeShips) Patch(_ context.Context, _ sdk.Resource, _, name string, _ sdk.PatchType, patch []byte, _ ...string) (*sdk.Object, error) {
	p, _ := sdk.ParseObject(patch)
	s := f.byName[name]
	return s, s.Set("spec.class", p.String("spec.class"))
}

func (f *fakeShips) Delete(_ context.Context, _ sdk.Resource, _, name string, _ ...sdk.DeleteOption) error {
	delete(f.byName, name)
	return nil
}

func (f *fakeShips) Update(context.Context, sdk.Resource, *sdk.Object) (*sdk.Object, error) {
	return nil, fmt.Errorf("not used")
}

func (f *fakeShips) UpdateStatus(context.Context, sdk.Resource, *sdk.Object) (*sdk.Object, error) {
	return nil, fmt.Errorf("not used")
}

func fleet(t *testing.T, replicas int, class string, deleting bool) *sdk.Object {
	t.Helper()
	f := sdk.NewObject("fleet.example.com/v1", "Fleet", "sea", "f")
	err := f.Set("metadata.uid", "uid-f")
	if err == nil {
		err = f.Set("spec", map[string]any{"replicas": replicas, "class": class})
	}
	if err == nil && deleting {
		err = f.Set("metadata.deletionTimestamp", "2026-01-01T00:00:00Z")
	}
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestReconcileScalesShips(t *testing.T) {
	c := &fakeShips{byName: map[string]*sdk.Object{}}
	// Someone else's ship, which the fleet must leave alone.
	stranger := sdk.NewObject("fleet.example.com/v1", "Ship", "sea", "lone")
	c.byName["lone"] = stranger

	steps := []struct {
		replicas int
		class    string
		want     []string
		event    string // the message of the Scaled event, if any
	}{
		{3, "", []string{"f-0", "f-1", "f-2", "lone"}, "Scaled to 3 ships"},
		{3, "", []string{"f-0", "f-1", "f-2", "lone"}, ""},
		{1, "tanker", []string{"f-0", "lone"}, "Scaled to 1 ship"},
		{2, "tanker", []string{"f-0", "f-1", "lone"}, "Scaled to 2 ships"},
	}
	for _, step := range steps {
		f := fleet(t, step.replicas, step.class, false)
		var events []sdk.Event
		rec := sdk.NewEvents(func(e sdk.Event) { events = append(events, e) })
		res, err := reconcile(context.Background(), &sdk.ReconcileRequest{Object: f, Client: c, Events: rec})
		if err != nil {
			t.Fatal(err)
		}
		var want []sdk.Event
		if step.event != "" {
			want = []sdk.Event{{Type: "Normal", Reason: "Scaled", Message: step.event}}
		}
		if !slices.Equal(events, want) {
			t.Errorf("replicas %d: events %v, want %v", step.replicas, events, want)
		}
		if got := c.names(); !slices.Equal(got, step.want) {
			t.Errorf("replicas %d: ships %v, want %v", step.replicas, got, step.want)
		}
		st := res.Status.(fleetStatus)
		if st.ReadyReplicas != step.replicas || st.Conditions[0].Status != "True" || st.Conditions[0].Reason != "Converged" || res.Requeue {
			t.Errorf("replicas %d: result %+v", step.replicas, res)
		}
		for _, name := range step.want[:len(step.want)-1] {
			s := c.byName[name]
			if !s.IsControlledBy(f) || s.Label(fleetLabel) != "f" || s.String("spec.class") != step.class {
				t.Errorf("ship %s = %s", name, s.JSON())
			}
		}
	}

	res, err := reconcile(context.Background(), &sdk.ReconcileRequest{Object: fleet(t, 2, "tanker", true), Client: c})
	if err != nil || !res.FinalizerDone {
		t.Fatalf("deleting: %+v, %v", res, err)
	}
	if got := c.names(); !slices.Equal(got, []string{"lone"}) {
		t.Errorf("after the fleet's deletion: ships %v", got)
	}
}

func TestReconcileReportsAShipInTheWay(t *testing.T) {
	c := &fakeShips{byName: map[string]*sdk.Object{}}
	c.byName["f-0"] = sdk.NewObject("fleet.example.com/v1", "Ship", "sea", "f-0") // not the fleet's
	var events []sdk.Event
	rec := sdk.NewEvents(func(e sdk.Event) { events = append(events, e) })
	res, err := reconcile(context.Background(), &sdk.ReconcileRequest{Object: fleet(t, 2, "", false), Client: c, Events: rec})
	if err != nil {
		t.Fatal(err)
	}
	want := []sdk.Event{{Type: "Warning", Reason: "FailedScale", Message: "ship f-0 exists and is not this fleet's"}}
	if !slices.Equal(events, want) {
		t.Errorf("events %v, want %v", events, want)
	}
	st := res.Status.(fleetStatus)
	if st.ReadyReplicas != 1 || st.Conditions[0].Reason != "Scaling" || !res.Requeue {
		t.Errorf("result %+v, want 1 ready, Scaling, requeued", res)
	}
}

// TestGuideShowsRecordScale keeps the events example of docs/plugins.md
// the function that is built and tested here.
func TestGuideShowsRecordScale(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "plugins.md"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "```go\nfunc recordScale(")
	block, _, _ = strings.Cut(block, "```")
	if !ok || !strings.Contains(string(src), "\nfunc recordScale("+block) {
		t.Errorf("docs/plugins.md's recordScale is not main.go's:\nfunc recordScale(%s", block)
	}
}
