package events

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"

	"github.com/specd-io/specd/plugins/hook"
)

// Resource is where Events are written: the core group's events.
var Resource = hook.ResourceRef{Group: "", Version: "v1", Resource: "events"}

// mergePatch is how a series is patched. client-go's correlator makes a
// strategic merge patch of count, lastTimestamp and message; for those
// scalar fields it is also a merge patch, which every resource accepts.
const mergePatch = "application/merge-patch+json"

// Sink is where a Recorder writes Events: specd's own API
// (hook.Callbacks, as the plugin), or a host cluster's (HostSink).
type Sink interface {
	Create(ctx context.Context, r hook.ResourceRef, namespace string, obj []byte) ([]byte, error)
	Patch(ctx context.Context, r hook.ResourceRef, namespace, name, patchType string, patch []byte, subresource string) ([]byte, error)
}

var _ Sink = hook.Callbacks(nil)

// Recorder writes the Events of one source (a plugin) to a Sink.
// It is safe for concurrent use.
type Recorder struct {
	cb        Sink
	component string // source.component and reportingComponent
	instance  string // reportingInstance
	// corr is client-go's own correlator (tools/record), with its
	// defaults, so that a plugin's events form series, combine and are
	// dropped as spam exactly as a controller's do.
	corr *record.EventCorrelator
	// Now is the clock; tests set it.
	Now func() time.Time
}

// NewRecorder records as component (the plugin's name), reporting
// instance (which process of it: "NAME-HOSTNAME").
func NewRecorder(cb Sink, component, instance string) *Recorder {
	r := &Recorder{cb: cb, component: component, instance: instance, Now: time.Now}
	r.corr = record.NewEventCorrelator(recorderClock{r})
	return r
}

// recorderClock lets the correlator read the Recorder's clock, which
// tests set after NewRecorder.
type recorderClock struct{ r *Recorder }

func (c recorderClock) Now() time.Time                  { return c.r.Now() }
func (c recorderClock) Since(t time.Time) time.Duration { return c.r.Now().Sub(t) }

// Record records one event about ref and returns the Event as stored; nil
// (and no error) when it was dropped as spam. Errors are the Callbacks':
// nothing is retried, as the event is one moment's news.
func (r *Recorder) Record(ctx context.Context, ref corev1.ObjectReference, eventType, reason, message string) ([]byte, error) {
	if eventType != corev1.EventTypeNormal && eventType != corev1.EventTypeWarning {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("event type %q: must be %q or %q", eventType, corev1.EventTypeNormal, corev1.EventTypeWarning))
	}
	ev := newEvent(ref, eventType, reason, message, r.Now())
	ev.Source = corev1.EventSource{Component: r.component}
	ev.ReportingController, ev.ReportingInstance = r.component, r.instance
	c, err := r.corr.EventCorrelate(ev)
	if err != nil || c.Skip {
		return nil, err
	}
	stored, err := r.write(ctx, r.complete(c.Event), c.Patch)
	if err != nil {
		return nil, err
	}
	var got corev1.Event
	if err := json.Unmarshal(stored, &got); err != nil {
		return nil, fmt.Errorf("events: the stored event: %w", err)
	}
	r.corr.UpdateState(&got)
	return stored, nil
}

// complete fills what the correlator leaves out of a combined Event
// ("(combined from similar events): ..."), which it makes anew.
func (r *Recorder) complete(ev *corev1.Event) *corev1.Event {
	ev.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Event"}
	ev.ReportingController, ev.ReportingInstance = r.component, r.instance
	return ev
}

// write patches the Event of a series, or creates it: first of its
// series, or its Event is gone (expired, deleted).
func (r *Recorder) write(ctx context.Context, ev *corev1.Event, patch []byte) ([]byte, error) {
	if patch != nil {
		stored, err := r.cb.Patch(ctx, Resource, ev.Namespace, ev.Name, mergePatch, patch, "")
		if !apierrors.IsNotFound(err) {
			return stored, err
		}
	}
	ev.ResourceVersion = ""
	body, err := json.Marshal(ev)
	if err != nil {
		return nil, fmt.Errorf("events: encode: %w", err)
	}
	return r.cb.Create(ctx, Resource, ev.Namespace, body)
}

// newEvent is the first Event of a series about ref, made at now, where
// client-go's recorder puts it: in ref's namespace, or "default" for a
// cluster-scoped object.
func newEvent(ref corev1.ObjectReference, eventType, reason, message string, now time.Time) *corev1.Event {
	t := metav1.NewTime(now)
	ns := ref.Namespace
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	return &corev1.Event{
		TypeMeta:       metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta:     metav1.ObjectMeta{Name: eventName(ref.Name, now), Namespace: ns},
		InvolvedObject: ref,
		Type:           eventType,
		Reason:         reason,
		Message:        message,
		FirstTimestamp: t,
		LastTimestamp:  t,
		Count:          1,
	}
}

// eventName is "<object name>.<unix nanoseconds in hex>", as client-go
// names an Event, or a random UUID when that is too long to be a name.
func eventName(object string, now time.Time) string {
	name := fmt.Sprintf("%s.%x", object, now.UnixNano())
	if len(apivalidation.NameIsDNSSubdomain(name, false)) > 0 {
		return uuid.NewString()
	}
	return name
}
