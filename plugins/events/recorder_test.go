package events_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/specd-io/specd/plugins/events"
	"github.com/specd-io/specd/plugins/hook"
)

// fakeEvents stores Events in memory as specd would: resourceVersions,
// NotFound and AlreadyExists, merge patches. It records each call.
type fakeEvents struct {
	objs  map[string][]byte
	rv    int
	calls []string
}

var _ hook.Callbacks = (*fakeEvents)(nil)

var eventsGR = schema.GroupResource{Resource: "events"}

func (f *fakeEvents) store(ns, name string, obj []byte) ([]byte, error) {
	var ev map[string]any
	if err := json.Unmarshal(obj, &ev); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	f.rv++
	ev["metadata"].(map[string]any)["resourceVersion"] = fmt.Sprint(f.rv)
	out, _ := json.Marshal(ev)
	f.objs[ns+"/"+name] = out
	return out, nil
}

func (f *fakeEvents) Create(_ context.Context, r hook.ResourceRef, ns string, obj []byte) ([]byte, error) {
	var ev corev1.Event
	if err := json.Unmarshal(obj, &ev); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	f.calls = append(f.calls, fmt.Sprintf("create %s/%s/%s %s/%s count=%d rv=%q", r.Group, r.Version, r.Resource, ns, ev.Name, ev.Count, ev.ResourceVersion))
	if _, ok := f.objs[ns+"/"+ev.Name]; ok {
		return nil, apierrors.NewAlreadyExists(eventsGR, ev.Name)
	}
	return f.store(ns, ev.Name, obj)
}

func (f *fakeEvents) Patch(_ context.Context, r hook.ResourceRef, ns, name, pt string, patch []byte, sub string) ([]byte, error) {
	f.calls = append(f.calls, fmt.Sprintf("patch %s/%s/%s %s/%s %s %s%s", r.Group, r.Version, r.Resource, ns, name, pt, patch, sub))
	old, ok := f.objs[ns+"/"+name]
	if !ok {
		return nil, apierrors.NewNotFound(eventsGR, name)
	}
	obj, err := jsonpatch.MergePatch(old, patch)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	return f.store(ns, name, obj)
}

func (f *fakeEvents) Get(context.Context, hook.ResourceRef, string, string) ([]byte, error) {
	return nil, fmt.Errorf("not used")
}
func (f *fakeEvents) List(context.Context, hook.ResourceRef, string, string) ([]byte, error) {
	return nil, fmt.Errorf("not used")
}
func (f *fakeEvents) Update(context.Context, hook.ResourceRef, string, string, []byte) ([]byte, error) {
	return nil, fmt.Errorf("not used")
}
func (f *fakeEvents) UpdateStatus(context.Context, hook.ResourceRef, string, string, []byte) ([]byte, error) {
	return nil, fmt.Errorf("not used")
}
func (f *fakeEvents) Delete(context.Context, hook.ResourceRef, string, string, string) error {
	return fmt.Errorf("not used")
}

// clock is a settable time for a Recorder.
type clock struct{ t time.Time }

func (c *clock) now() time.Time           { return c.t }
func (c *clock) step(d time.Duration)     { c.t = c.t.Add(d) }
func (c *clock) hexNanos() string         { return fmt.Sprintf("%x", c.t.UnixNano()) }
func (c *clock) stamp() metav1.Time       { return metav1.NewTime(c.t) }
func (c *clock) rfc3339(t time.Time) bool { return t.Equal(c.t.Truncate(time.Second)) }

func newRecorder() (*events.Recorder, *fakeEvents, *clock) {
	f := &fakeEvents{objs: map[string][]byte{}}
	c := &clock{t: time.Date(2026, 11, 25, 10, 0, 0, 123456789, time.UTC)}
	r := events.NewRecorder(f, "fleet-controller", "fleet-controller-host1")
	r.Now = c.now
	return r, f, c
}

var fleet = corev1.ObjectReference{APIVersion: "fleet.example.com/v1", Kind: "Fleet", Namespace: "sea", Name: "armada",
	UID: "uid-1", ResourceVersion: "7"}

func record(t *testing.T, r *events.Recorder, ref corev1.ObjectReference, typ, reason, msg string) *corev1.Event {
	t.Helper()
	b, err := r.Record(context.Background(), ref, typ, reason, msg)
	if err != nil {
		t.Fatalf("record %s %s: %v", reason, msg, err)
	}
	if b == nil {
		return nil
	}
	var ev corev1.Event
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	return &ev
}

// TestRecordFirst: the first event is a new Event in the object's
// namespace, named and filled as client-go's recorder does.
func TestRecordFirst(t *testing.T) {
	r, f, c := newRecorder()
	got := record(t, r, fleet, "Normal", "Scaled", "Scaled to 3 ships")
	want := corev1.Event{
		TypeMeta:            metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta:          metav1.ObjectMeta{Name: "armada." + c.hexNanos(), Namespace: "sea", ResourceVersion: "1"},
		InvolvedObject:      fleet,
		Reason:              "Scaled",
		Message:             "Scaled to 3 ships",
		Source:              corev1.EventSource{Component: "fleet-controller"},
		FirstTimestamp:      c.stamp().Rfc3339Copy(),
		LastTimestamp:       c.stamp().Rfc3339Copy(),
		Count:               1,
		Type:                "Normal",
		ReportingController: "fleet-controller",
		ReportingInstance:   "fleet-controller-host1",
	}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("event (-want +got):\n%s", diff)
	}
	if len(f.calls) != 1 || !strings.HasPrefix(f.calls[0], "create /v1/events sea/armada.") {
		t.Errorf("calls = %q, want one create in the core group", f.calls)
	}
}

// TestRecordSeries: a repeat patches count and lastTimestamp of the same
// Event; another message is another Event; a series whose Event is gone
// is created again under its name, with its count.
func TestRecordSeries(t *testing.T) {
	r, f, c := newRecorder()
	first := record(t, r, fleet, "Normal", "Scaled", "Scaled to 3 ships")
	c.step(90 * time.Second)
	second := record(t, r, fleet, "Normal", "Scaled", "Scaled to 3 ships")
	if second.Name != first.Name || second.Count != 2 || !second.FirstTimestamp.Equal(&first.FirstTimestamp) ||
		!c.rfc3339(second.LastTimestamp.Time) {
		t.Errorf("second = %s count %d first %v last %v; want %s count 2, first unchanged, last now",
			second.Name, second.Count, second.FirstTimestamp, second.LastTimestamp, first.Name)
	}
	wantPatch := fmt.Sprintf(`patch /v1/events sea/%s application/merge-patch+json {"count":2,"lastTimestamp":%q,"message":"Scaled to 3 ships"}`,
		first.Name, c.t.UTC().Format(time.RFC3339))
	if len(f.calls) != 2 || f.calls[1] != wantPatch {
		t.Errorf("calls = %q\nwant the second %q", f.calls, wantPatch)
	}
	other := record(t, r, fleet, "Normal", "Scaled", "Scaled to 4 ships")
	if other.Name == first.Name || other.Count != 1 || len(f.objs) != 2 {
		t.Errorf("another message: %s count %d, %d objects; want a new Event", other.Name, other.Count, len(f.objs))
	}

	delete(f.objs, "sea/"+first.Name)
	again := record(t, r, fleet, "Normal", "Scaled", "Scaled to 3 ships")
	if again.Name != first.Name || again.Count != 3 || again.ResourceVersion == second.ResourceVersion {
		t.Errorf("after its Event is gone: %s count %d rv %s", again.Name, again.Count, again.ResourceVersion)
	}
	if last := f.calls[len(f.calls)-1]; last != fmt.Sprintf(`create /v1/events sea/%s count=3 rv=""`, first.Name) {
		t.Errorf("last call %q, want a create after the patch's NotFound", last)
	}
}

// TestRecordWhere: a cluster-scoped object's events go to "default"; a
// name too long for "<name>.<hex>" gets a UUID; only Normal and Warning
// are event types.
func TestRecordWhere(t *testing.T) {
	r, _, _ := newRecorder()
	cluster := corev1.ObjectReference{APIVersion: "fleet.example.com/v1", Kind: "Harbor", Name: "north", UID: "uid-h"}
	if ev := record(t, r, cluster, "Warning", "Full", "no berth"); ev.Namespace != "default" || ev.InvolvedObject.Namespace != "" {
		t.Errorf("cluster-scoped: namespace %q, involvedObject.namespace %q", ev.Namespace, ev.InvolvedObject.Namespace)
	}
	long := fleet
	long.Name = strings.Repeat("a", 250)
	if ev := record(t, r, long, "Normal", "Scaled", "m"); len(ev.Name) != 36 || strings.HasPrefix(ev.Name, "aaa") {
		t.Errorf("long name: event %q, want a UUID", ev.Name)
	}
	_, err := r.Record(context.Background(), fleet, "Info", "Scaled", "m")
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), `event type "Info"`) {
		t.Errorf("type Info: err = %v, want BadRequest naming it", err)
	}
}

// TestRecordAggregate: the tenth distinct message of one reason about one
// object within ten minutes becomes a combined Event, and the next ones
// count on it.
func TestRecordAggregate(t *testing.T) {
	r, f, c := newRecorder()
	for i := range 9 {
		if ev := record(t, r, fleet, "Warning", "FailedCreate", fmt.Sprintf("ship %d", i)); ev.Count != 1 {
			t.Fatalf("message %d: count %d", i, ev.Count)
		}
		c.step(time.Second)
	}
	combined := record(t, r, fleet, "Warning", "FailedCreate", "ship 9")
	if combined.Message != "(combined from similar events): ship 9" || combined.Count != 1 || len(f.objs) != 10 {
		t.Errorf("tenth: %q count %d, %d objects", combined.Message, combined.Count, len(f.objs))
	}
	c.step(time.Second)
	next := record(t, r, fleet, "Warning", "FailedCreate", "ship 10")
	if next.Name != combined.Name || next.Count != 2 || next.Message != "(combined from similar events): ship 10" || len(f.objs) != 10 {
		t.Errorf("eleventh: %s %q count %d, %d objects; want the combined Event counted", next.Name, next.Message, next.Count, len(f.objs))
	}
	c.step(11 * time.Minute)
	if fresh := record(t, r, fleet, "Warning", "FailedCreate", "ship 11"); fresh.Message != "ship 11" || fresh.Count != 1 {
		t.Errorf("after ten quiet minutes: %q count %d, want a plain new Event", fresh.Message, fresh.Count)
	}
}

// TestRecordSpam: 25 events about one object at once, then one every five
// minutes; another object has its own budget.
func TestRecordSpam(t *testing.T) {
	r, f, c := newRecorder()
	for i := range 25 {
		if ev := record(t, r, fleet, "Normal", "Scaled", "Scaled to 3 ships"); ev == nil || ev.Count != int32(i+1) {
			t.Fatalf("event %d: %v", i, ev)
		}
	}
	calls := len(f.calls)
	if ev := record(t, r, fleet, "Normal", "Scaled", "Scaled to 3 ships"); ev != nil || len(f.calls) != calls {
		t.Errorf("26th: %v, %d calls; want dropped without a call", ev, len(f.calls)-calls)
	}
	other := fleet
	other.Name, other.UID = "flotilla", "uid-2"
	if record(t, r, other, "Normal", "Scaled", "Scaled to 1 ship") == nil {
		t.Error("another object was dropped")
	}
	c.step(5 * time.Minute)
	ev := record(t, r, fleet, "Normal", "Scaled", "Scaled to 3 ships")
	if ev == nil || ev.Count != 27 {
		t.Errorf("after five minutes: %v, want the series at count 27 (the dropped one counted)", ev)
	}
	if record(t, r, fleet, "Normal", "Scaled", "Scaled to 3 ships") != nil {
		t.Error("a second event within the refill was recorded")
	}
}
