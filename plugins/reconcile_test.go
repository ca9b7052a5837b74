package plugins

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/specd-io/specd/plugins/hook"
)

// fakeCallbacks keeps objects of one resource in memory, with
// resourceVersions and the API errors specd gives, and records each call.
type fakeCallbacks struct {
	mu    sync.Mutex
	objs  map[string][]byte // namespace/name -> JSON
	rv    int
	calls []string
}

func newFakeCallbacks() *fakeCallbacks { return &fakeCallbacks{objs: map[string][]byte{}} }

func (f *fakeCallbacks) record(format string, args ...any) {
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

func gr(r hook.ResourceRef) schema.GroupResource {
	return schema.GroupResource{Group: r.Group, Resource: r.Resource}
}

func (f *fakeCallbacks) Get(_ context.Context, r hook.ResourceRef, ns, name string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("get %s %s/%s", r.Resource, ns, name)
	obj, ok := f.objs[ns+"/"+name]
	if !ok {
		return nil, apierrors.NewNotFound(gr(r), name)
	}
	return obj, nil
}

func (f *fakeCallbacks) List(_ context.Context, r hook.ResourceRef, ns, selector string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("list %s %s %s", r.Resource, ns, selector)
	list := []byte(`{"kind":"ThingList","apiVersion":"test.specd.io/v1","items":[]}`)
	for _, obj := range f.objs {
		list, _ = sjson.SetRawBytes(list, "items.-1", obj)
	}
	return list, nil
}

func (f *fakeCallbacks) store(r hook.ResourceRef, ns string, obj []byte) []byte {
	f.rv++
	obj, _ = sjson.SetBytes(obj, "metadata.resourceVersion", fmt.Sprint(f.rv))
	f.objs[ns+"/"+gjson.GetBytes(obj, "metadata.name").Str] = obj
	return obj
}

func (f *fakeCallbacks) Create(_ context.Context, r hook.ResourceRef, ns string, obj []byte) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	name := gjson.GetBytes(obj, "metadata.name").Str
	f.record("create %s %s/%s", r.Resource, ns, name)
	if _, ok := f.objs[ns+"/"+name]; ok {
		return nil, apierrors.NewAlreadyExists(gr(r), name)
	}
	obj, _ = sjson.SetBytes(obj, "metadata.uid", "uid-"+name)
	return f.store(r, ns, obj), nil
}

func (f *fakeCallbacks) update(verb string, r hook.ResourceRef, ns, name string, obj []byte) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("%s %s %s/%s", verb, r.Resource, ns, name)
	old, ok := f.objs[ns+"/"+name]
	if !ok {
		return nil, apierrors.NewNotFound(gr(r), name)
	}
	if rv := gjson.GetBytes(obj, "metadata.resourceVersion").Str; rv != "" && rv != gjson.GetBytes(old, "metadata.resourceVersion").Str {
		return nil, apierrors.NewConflict(gr(r), name, fmt.Errorf("the object has been modified"))
	}
	return f.store(r, ns, obj), nil
}

func (f *fakeCallbacks) Update(_ context.Context, r hook.ResourceRef, ns, name string, obj []byte) ([]byte, error) {
	return f.update("update", r, ns, name, obj)
}

func (f *fakeCallbacks) UpdateStatus(_ context.Context, r hook.ResourceRef, ns, name string, obj []byte) ([]byte, error) {
	return f.update("update-status", r, ns, name, obj)
}

func (f *fakeCallbacks) Patch(_ context.Context, r hook.ResourceRef, ns, name, pt string, patch []byte, sub string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("patch %s %s/%s %s %s %s", r.Resource, ns, name, pt, patch, sub)
	obj, ok := f.objs[ns+"/"+name]
	if !ok {
		return nil, apierrors.NewNotFound(gr(r), name)
	}
	return obj, nil
}

func (f *fakeCallbacks) Delete(_ context.Context, r hook.ResourceRef, ns, name, propagation string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("delete %s %s/%s %s", r.Resource, ns, name, propagation)
	delete(f.objs, ns+"/"+name)
	return nil
}

func reconcileReq(obj []byte) hook.ReconcileRequest {
	return hook.ReconcileRequest{Group: "test.specd.io", Version: "v1", Kind: "Widget", Resource: "widgets",
		Namespace: "ns", Name: "w1", Object: obj}
}

func TestReconcileCallsBack(t *testing.T) {
	cb := newFakeCallbacks()
	h, _ := newHost(t, pluginDir(t, map[string]string{"widgets": "testplugin"}), cb)
	res, err := h.Reconcile(ctxTimeout(t, 20*time.Second), "widgets", reconcileReq(widget(`{"action":"callbacks"}`)))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Requeue || res.RequeueAfter != 0 || res.FinalizerDone {
		t.Errorf("result = %+v, want Requeue only", res)
	}
	var st map[string]any
	if err := json.Unmarshal(res.Status, &st); err != nil {
		t.Fatalf("status %s: %v", res.Status, err)
	}
	delete(st, "pid")
	want := map[string]any{
		"created": "w1-thing", "createAgainAlreadyExists": true, "gotControlled": true,
		"missingNotFound": true, "missingCode": 404.0, "listed": 1.0, "staleUpdateConflict": true,
	}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Errorf("what the plugin saw (-want +got):\n%s", diff)
	}
	wantCalls := []string{
		"create things ns/w1-thing",
		"create things ns/w1-thing",
		"get things ns/w1-thing",
		"get things ns/missing",
		"list things ns app=test",
		"update things ns/w1-thing",
		"update things ns/w1-thing",
		"update-status things ns/w1-thing",
		`patch things ns/w1-thing application/merge-patch+json {"spec":{"size":4}} status`,
		"delete things ns/w1-thing Foreground",
	}
	if diff := cmp.Diff(wantCalls, cb.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func TestReconcileResults(t *testing.T) {
	h, _ := newHost(t, pluginDir(t, map[string]string{"widgets": "testplugin"}), nil)
	ctx := ctxTimeout(t, 20*time.Second)

	res, err := h.Reconcile(ctx, "widgets", reconcileReq(widget(`{}`)))
	if err != nil {
		t.Fatal(err)
	}
	if res.RequeueAfter != 1500*time.Millisecond || res.Requeue || res.FinalizerDone {
		t.Errorf("result = %+v, want RequeueAfter 1.5s only", res)
	}
	cond := gjson.GetBytes(res.Status, "conditions.0")
	if cond.Get("type").Str != "Ready" || cond.Get("status").Str != "True" || cond.Get("observedGeneration").Int() != 2 ||
		cond.Get("lastTransitionTime").Str == "" {
		t.Errorf("status = %s, want a Ready=True condition of generation 2 with a transition time", res.Status)
	}

	deleting, _ := sjson.SetBytes(widget(`{}`), "metadata.deletionTimestamp", "2026-01-01T00:00:00Z")
	if res, err = h.Reconcile(ctx, "widgets", reconcileReq(deleting)); err != nil || !res.FinalizerDone || res.Status != nil {
		t.Errorf("deleting: result %+v, err %v; want FinalizerDone and no status", res, err)
	}

	// Without Callbacks a reconciler's calls answer 503.
	_, err = h.Reconcile(ctx, "widgets", reconcileReq(widget(`{"action":"callbacks"}`)))
	if err == nil || !strings.Contains(err.Error(), "specd serves no callbacks to plugins") {
		t.Errorf("reconcile calling back without Callbacks: err = %v", err)
	}
}

// TestReconcileRecordsEvents: an event a reconciler records becomes a core
// v1 Event about the reconciled object, written through the Callbacks as
// the plugin's user; the same event again patches its count.
func TestReconcileRecordsEvents(t *testing.T) {
	fake := newFakeCallbacks()
	cb := &userCallbacks{Callbacks: fake, users: map[string]bool{}}
	h, _ := newHost(t, pluginDir(t, map[string]string{"widgets": "testplugin"}), cb)
	ctx := ctxTimeout(t, 20*time.Second)
	for range 2 {
		if _, err := h.Reconcile(ctx, "widgets", reconcileReq(widget(`{"action":"events"}`))); err != nil {
			t.Fatal(err)
		}
	}
	if len(fake.calls) != 2 || !strings.HasPrefix(fake.calls[0], "create events ns/w1.") {
		t.Fatalf("calls = %q, want a create and a patch of one Event", fake.calls)
	}
	name := strings.TrimPrefix(fake.calls[0], "create events ns/")
	if !strings.HasPrefix(fake.calls[1], "patch events ns/"+name+` application/merge-patch+json {"count":2,"lastTimestamp":`) {
		t.Errorf("second call %q, want a patch of %s's count", fake.calls[1], name)
	}
	ev := gjson.ParseBytes(fake.objs["ns/"+name])
	got := map[string]string{}
	for _, path := range []string{"apiVersion", "kind", "type", "reason", "message", "source.component", "reportingComponent",
		"involvedObject.apiVersion", "involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid"} {
		got[path] = ev.Get(path).String()
	}
	want := map[string]string{"apiVersion": "v1", "kind": "Event", "type": "Normal", "reason": "Seen", "message": "seen by testplugin 2",
		"source.component": "widgets", "reportingComponent": "widgets",
		"involvedObject.apiVersion": "test.specd.io/v1", "involvedObject.kind": "Widget", "involvedObject.namespace": "ns",
		"involvedObject.name": "w1", "involvedObject.uid": "u-1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("event (-want +got):\n%s", diff)
	}
	if inst := ev.Get("reportingInstance").Str; !strings.HasPrefix(inst, "widgets") {
		t.Errorf("reportingInstance %q, want the plugin's name first", inst)
	}
	if diff := cmp.Diff(map[string]bool{"system:plugin:widgets system:plugins,system:authenticated": true}, cb.users); diff != "" {
		t.Errorf("users (-want +got):\n%s", diff)
	}
}
